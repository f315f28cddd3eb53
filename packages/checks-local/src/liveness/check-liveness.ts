/**
 * The liveness check: frames out of ffmpeg, faces out of Human, signals out of the mesh.
 */
import { ManualReviewRequiredError } from '../contract.js';
import { confidentFaces } from '../face/face-match.js';
import type { HumanClient } from '../face/human-client.js';
import type { WorkerFace } from '../face/worker-protocol.js';
import { extractFrames } from './extract-frames.js';
import type { FrameSampling } from './extract-frames.js';
import { judgeLiveness, measureLiveness } from './signals.js';
import type { LivenessThresholds, LivenessVerdict } from './signals.js';

/** What the mobile app asks for; the check requires exactly this. */
export const LIVENESS_CHALLENGE = {
  blink: true,
  headTurnMinYawDegrees: 15,
  minDurationSeconds: 2,
  maxDurationSeconds: 3,
  instructions:
    'Hold the phone at eye level with only your face in view. Record for 2 to 3 seconds: look at the camera, blink once, then slowly turn your head to one side and back.',
} as const satisfies {
  blink: true;
  headTurnMinYawDegrees: number;
  minDurationSeconds: number;
  maxDurationSeconds: number;
  instructions: string;
};

/** 10 frames a second catches a blink (100–400 ms); only the challenge's length is read. */
export const FRAME_SAMPLING: FrameSampling = {
  framesPerSecond: 10,
  maxSeconds: LIVENESS_CHALLENGE.maxDurationSeconds,
  maxSide: 640,
};

/**
 * Frames that also get a face descriptor (for identity stability and the document match): each
 * costs about 120 ms more than detection and mesh, so a handful spread over the clip.
 */
export const DESCRIBED_FRAMES = 5;

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
  const frames = await extractFrames(video, { ...FRAME_SAMPLING, ffmpegPath: dependencies.ffmpegPath, timeoutMs: dependencies.decodeTimeoutMs });
  // Frames at 10 a second: fewer than 90 % of the minimum length means a clip too short to show the challenge.
  if (frames.length < 0.9 * LIVENESS_CHALLENGE.minDurationSeconds * FRAME_SAMPLING.framesPerSecond) {
    throw new ManualReviewRequiredError(`Liveness: the video is shorter than ${LIVENESS_CHALLENGE.minDurationSeconds} seconds`);
  }
  const describeEvery = Math.max(1, Math.floor(frames.length / DESCRIBED_FRAMES));
  const facesPerFrame: WorkerFace[][] = [];
  for (const [index, frame] of frames.entries()) {
    const describe = index % describeEvery === Math.floor(describeEvery / 2);
    facesPerFrame.push(confidentFaces(await dependencies.client.detectFaces(frame, { describe })));
  }
  const measurements = measureLiveness(facesPerFrame, documentEmbedding);
  if (measurements.framesWithOneFace === 0) throw new ManualReviewRequiredError('Liveness: no face found in the video');
  return judgeLiveness(measurements, LIVENESS_THRESHOLDS);
}
