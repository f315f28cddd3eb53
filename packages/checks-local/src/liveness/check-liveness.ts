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
import type { LivenessChallengeRequest, LivenessThresholds, LivenessVerdict } from './signals.js';

export { LIVENESS_CHALLENGE };

/** 10 frames a second catches a blink (100–400 ms); only the challenge's length is read. */
const FRAMES_PER_SECOND = 10;

export const FRAME_SAMPLING: FrameSampling = {
  framesPerSecond: FRAMES_PER_SECOND,
  maxSeconds: LIVENESS_CHALLENGE.maxDurationSeconds,
  maxSide: 640,
};

/**
 * Frames that also get a face descriptor (for identity stability and the document match): each
 * costs about 150 ms more than detection and mesh, so three, near the start, middle and end of
 * a 3-second clip. Chosen before the clip's length is known, as frames are detected while decoding.
 */
export const DESCRIBED_FRAME_INDEXES: readonly number[] = [2, 15, 28];

/**
 * Measured on real webcam recordings and replays made from them (bench/liveness-bench.mjs; the
 * table and how each was chosen are in docs/checks-on-cpu.md). Each sits between what the tuning
 * set's real segments and its replays showed.
 */
export const LIVENESS_THRESHOLDS: LivenessThresholds = {
  minShareWithOneFace: 0.9,
  // Blinks fell to 0.44–0.55 of the median, eyes open never below 0.77, replays of a sharp frame never below
  // 0.85; a soft, zoomed, heavily compressed photo's mesh pinched the eyes to 0.64–0.69 in single frames.
  blinkEyeAspectShare: 0.6,
  // Head turns spanned 12–20°; a person sitting still 1–4°, replays at most 1.5°.
  headTurnMinYawDegrees: LIVENESS_CHALLENGE.headTurnMinYawDegrees,
  sideTurnMinYawDegrees: LIVENESS_CHALLENGE.headTurnMinYawDegrees,
  // Real faces 0.0115 and up, replays (still or hand-held) at most 0.0060 (6-second clips).
  minNonRigidResidual: 0.008,
  // Over 3 s a real person sitting still measured as rigid as a photo (0.0058); from 5 s on, never below 0.0095.
  minFramesForReplayCall: 5 * FRAMES_PER_SECOND,
  minIdentityStability: 0.6,
  minDocumentSimilarity: 0.5,
};

export interface LivenessDependencies {
  client: HumanClient;
  ffmpegPath: string;
  decodeTimeoutMs: number;
}

/**
 * The faces Human sees in each sampled frame of the video. Throws ManualReviewRequiredError for
 * a clip shorter than the challenge or one without any face.
 */
export async function detectVideoFaces(dependencies: LivenessDependencies, video: Buffer): Promise<WorkerFace[][]> {
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
  // Fewer than 90 % of the minimum length's frames means a clip too short to show the challenge.
  if (frameCount < 0.9 * LIVENESS_CHALLENGE.minDurationSeconds * FRAME_SAMPLING.framesPerSecond) {
    await Promise.allSettled(detections);
    throw new ManualReviewRequiredError(`Liveness: the video is shorter than ${LIVENESS_CHALLENGE.minDurationSeconds} seconds`);
  }
  const facesPerFrame = (await Promise.all(detections)).map(confidentFaces);
  if (!facesPerFrame.some((faces) => faces.length === 1)) throw new ManualReviewRequiredError('Liveness: no face found in the video');
  return facesPerFrame;
}

export async function checkLiveness(
  dependencies: LivenessDependencies,
  video: Buffer,
  documentEmbedding: Float32Array | null,
  challenge: LivenessChallengeRequest = {},
): Promise<LivenessVerdict> {
  const measurements = measureLiveness(await detectVideoFaces(dependencies, video), documentEmbedding);
  return judgeLiveness(measurements, LIVENESS_THRESHOLDS, challenge);
}
