/**
 * The liveness check: frames out of ffmpeg, faces out of Human, signals out of the mesh.
 */
import { LIVENESS_CHALLENGE, ManualReviewRequiredError } from '../contract.js';
import { confidentFaces } from '../face/face-match.js';
import type { HumanClient } from '../face/human-client.js';
import type { WorkerFace } from '../face/worker-protocol.js';
import { decodeFrames } from './extract-frames.js';
import type { FrameSampling } from './extract-frames.js';
import { judgeLiveness, measureLiveness } from './signals.js';
import type { LivenessThresholds, LivenessVerdict } from './signals.js';

export { LIVENESS_CHALLENGE };

/** 10 frames a second catches a blink (100–400 ms); only the challenge's length is read. */
export const FRAME_SAMPLING: FrameSampling = {
  framesPerSecond: 10,
  maxSeconds: LIVENESS_CHALLENGE.maxDurationSeconds,
  maxSide: 640,
};

/**
 * Frames that also get a face descriptor (for identity stability and the document match): each
 * costs about 150 ms more than detection and mesh, so three, near the start, middle and end of
 * a 3-second clip. Chosen before the clip's length is known, as frames are detected while decoding.
 */
export const DESCRIBED_FRAME_INDEXES: readonly number[] = [2, 15, 28];

export const LIVENESS_THRESHOLDS: LivenessThresholds = {
  minShareWithOneFace: 0.9,
  blinkEyeAspectShare: 0.6,
  headTurnMinYawDegrees: LIVENESS_CHALLENGE.headTurnMinYawDegrees,
  // Synthetic clips (test/liveness.test.ts): still photos panned and zoomed 0.006–0.009, six
  // different photos of one man spliced 0.016. Uncalibrated on real captures.
  minNonRigidResidual: 0.012,
  minIdentityStability: 0.6,
  minDocumentSimilarity: 0.5,
};

export interface LivenessDependencies {
  client: HumanClient;
  ffmpegPath: string;
  decodeTimeoutMs: number;
}

export async function checkLiveness(
  dependencies: LivenessDependencies,
  video: Buffer,
  documentEmbedding: Float32Array | null,
): Promise<LivenessVerdict> {
  const detections: Promise<WorkerFace[]>[] = [];
  const frameCount = await decodeFrames(video, { ...FRAME_SAMPLING, ffmpegPath: dependencies.ffmpegPath, timeoutMs: dependencies.decodeTimeoutMs }, (frame) => {
    const describe = DESCRIBED_FRAME_INDEXES.includes(detections.length);
    const detection = dependencies.client.detectFaces(frame, { describe });
    detection.catch(() => undefined); // awaited below; a decode error must not leave it unhandled
    detections.push(detection);
  }).catch(async (error: unknown) => {
    await Promise.allSettled(detections);
    throw error;
  });
  // Frames at 10 a second: fewer than 90 % of the minimum length means a clip too short to show the challenge.
  if (frameCount < 0.9 * LIVENESS_CHALLENGE.minDurationSeconds * FRAME_SAMPLING.framesPerSecond) {
    await Promise.allSettled(detections);
    throw new ManualReviewRequiredError(`Liveness: the video is shorter than ${LIVENESS_CHALLENGE.minDurationSeconds} seconds`);
  }
  const facesPerFrame = (await Promise.all(detections)).map(confidentFaces);
  const measurements = measureLiveness(facesPerFrame, documentEmbedding);
  if (measurements.framesWithOneFace === 0) throw new ManualReviewRequiredError('Liveness: no face found in the video');
  return judgeLiveness(measurements, LIVENESS_THRESHOLDS);
}
