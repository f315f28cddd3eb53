/**
 * Basic liveness signals from the faces Human saw in each video frame, and how they combine
 * into one score. These are heuristics with thresholds measured on two real webcam recordings
 * and replays made from them (bench/liveness-bench.mjs, table in docs/checks-on-cpu.md), not
 * presentation-attack detection in the ISO 30107-3 sense.
 */
import { faceSimilarity } from '../face/similarity.js';
import type { WorkerFace } from '../face/worker-protocol.js';
import { eyeAspectRatio, median, quantile, smoothedResiduals } from './geometry.js';

/** The user's own side, in the video as a camera records it (not mirrored). */
export type HeadTurnSide = 'left' | 'right';

/** What the app asked the user to do. Without a side, a blink or a head turn either way will do. */
export interface LivenessChallengeRequest {
  headTurnSide?: HeadTurnSide;
}

export interface LivenessThresholds {
  /** Share of frames that must show exactly one face (and none may show two). */
  minShareWithOneFace: number;
  /** A blink: the eye-aspect ratio falls below this share of its median. */
  blinkEyeAspectShare: number;
  /** A head turn: the yaw's 5th-to-95th-percentile range. */
  headTurnMinYawDegrees: number;
  /** A head turn to the side asked for: how far the yaw goes that way from the first frames' pose. */
  sideTurnMinYawDegrees: number;
  /** 90th percentile of the mesh's residual after a 2-D affine fit to the frame 1 s before, meshes averaged over 5 frames. */
  minNonRigidResidual: number;
  /** A rigid face is called a photo replay only with this many frames showing it (shorter: review). */
  minFramesForReplayCall: number;
  /** Lowest face similarity of a described frame to the clearest described one. */
  minIdentityStability: number;
  /** Median face similarity of the frames to the document portrait. */
  minDocumentSimilarity: number;
}

export interface LivenessMeasurements {
  frames: number;
  framesWithOneFace: number;
  framesWithSeveralFaces: number;
  eyeAspectMin: number;
  eyeAspectMedian: number;
  yawRangeDegrees: number;
  /** How far the head turned to the user's left and right from its pose in the first frames. */
  turnLeftDegrees: number;
  turnRightDegrees: number;
  nonRigidResidual: number;
  identityStability: number;
  documentSimilarity: number | null;
}

export type SignalName = 'oneFace' | 'blink' | 'headTurn' | 'turnedAsAsked' | 'nonRigid' | 'stableIdentity' | 'matchesDocument';

export interface LivenessVerdict {
  measurements: LivenessMeasurements;
  signals: Partial<Record<SignalName, boolean>>;
  livenessScore: number;
  presentationAttackDetected: boolean;
  attackType: string | null;
}

/** The face of each frame that has exactly one (frames with none or several are counted, not used). */
function singleFaces(frames: readonly WorkerFace[][]) {
  return frames.filter((faces) => faces.length === 1).map((faces) => faces[0]!);
}

/** Mesh averaging window: 5 frames (0.5 s at 10 a second) cancels most of the mesh's frame-to-frame jitter. */
const SMOOTHING_FRAMES = 5;
/** How far a frame's yaw may stray from its neighbours' median before its mesh is taken for a glitch. */
const MAX_YAW_GLITCH_DEGREES = 3;
/** Each averaged mesh is compared with the one 10 frames (1 s) before it. */
const RESIDUAL_LAG_FRAMES = 10;

export function measureLiveness(frames: readonly WorkerFace[][], documentEmbedding: Float32Array | null): LivenessMeasurements {
  const faces = singleFaces(frames);
  const eyeAspects = faces.map((face) => eyeAspectRatio(face.mesh)).filter(Number.isFinite);
  // The lowest eye opening is read only from frames whose pose agrees with their neighbours':
  // a mesh that glitches for one frame (the yaw jumps and falls back) also pinches the eyes.
  const steadyEyeAspects = faces
    .filter((face, index) => {
      const around = faces.slice(Math.max(0, index - 2), index + 3).map((near) => near.yawDegrees ?? Number.NaN);
      return Math.abs((face.yawDegrees ?? Number.NaN) - median(around)) <= MAX_YAW_GLITCH_DEGREES;
    })
    .map((face) => eyeAspectRatio(face.mesh))
    .filter(Number.isFinite);
  const yaws = faces.map((face) => face.yawDegrees).filter((yaw): yaw is number => yaw !== null && Number.isFinite(yaw));
  // The pose the user started from: the median of the first three frames, so one glitch does not move it.
  const startYaw = median(yaws.slice(0, 3));
  const residuals = smoothedResiduals(faces.map((face) => face.mesh), SMOOTHING_FRAMES, RESIDUAL_LAG_FRAMES).filter(Number.isFinite);
  // Descriptors are computed on a few frames only (they cost more than detection and mesh together).
  const described = faces.filter((face) => face.embedding?.length === 1024);
  const clearest = described.reduce<WorkerFace | null>((best, face) => (!best || face.score > best.score ? face : best), null);
  const stability = clearest ? described.map((face) => faceSimilarity(clearest.embedding!, face.embedding!)) : [];
  const toDocument = documentEmbedding ? described.map((face) => faceSimilarity(documentEmbedding, face.embedding!)) : [];
  return {
    frames: frames.length,
    framesWithOneFace: faces.length,
    framesWithSeveralFaces: frames.filter((faces) => faces.length > 1).length,
    eyeAspectMin: steadyEyeAspects.length ? Math.min(...steadyEyeAspects) : Number.NaN,
    eyeAspectMedian: median(eyeAspects),
    // 5th to 95th percentile: one frame's mesh glitch is not a head turn.
    yawRangeDegrees: yaws.length ? quantile(yaws, 0.95) - quantile(yaws, 0.05) : 0,
    // Human's yaw grows as the nose points to the image's left, which is the user's right in an unmirrored video.
    turnLeftDegrees: yaws.length ? Math.max(0, startYaw - quantile(yaws, 0.05)) : 0,
    turnRightDegrees: yaws.length ? Math.max(0, quantile(yaws, 0.95) - startYaw) : 0,
    // The 90th percentile: a real face deforms now and then (a word, a blink, a turn), a photo never does.
    nonRigidResidual: residuals.length ? quantile(residuals, 0.9) : 0,
    identityStability: stability.length > 1 ? Math.min(...stability) : 0,
    documentSimilarity: documentEmbedding ? (toDocument.length ? median(toDocument) : 0) : null,
  };
}

/**
 * The score says which signals were seen, placed so identity's bands mean what they say:
 * - every required signal seen (one face, a non-rigid face, the same person throughout, the
 *   document's face when there is a document, and the motion asked for): 0.9 plus 0.1 times the
 *   share of the other signals seen, so at or above a 0.9 threshold;
 * - a required signal missing: 0.5 + share / 4, between 0.5 and 0.75, a person looks at it;
 * - the still-photo pattern (no blink, no head turn, a rigid face, over a clip long enough for a
 *   real face to deform): at most 0.3, and presentationAttackDetected, because that is what a
 *   photo held to the camera looks like. A shorter rigid clip is left to a person.
 * The motion asked for is a head turn to `headTurnSide` when the challenge names one (a turn the
 * other way, or a blink alone, does not do), otherwise a blink or a head turn either way.
 * Human's own `real`/`live` models pass photo replays (measured), so they are not used.
 */
export function judgeLiveness(measurements: LivenessMeasurements, thresholds: LivenessThresholds, challenge: LivenessChallengeRequest = {}): LivenessVerdict {
  const m = measurements;
  const signals: Partial<Record<SignalName, boolean>> = {
    oneFace: m.framesWithSeveralFaces === 0 && m.framesWithOneFace >= thresholds.minShareWithOneFace * m.frames,
    blink: m.eyeAspectMin < thresholds.blinkEyeAspectShare * m.eyeAspectMedian,
    headTurn: m.yawRangeDegrees >= thresholds.headTurnMinYawDegrees,
    nonRigid: m.nonRigidResidual >= thresholds.minNonRigidResidual,
    stableIdentity: m.identityStability >= thresholds.minIdentityStability,
  };
  if (challenge.headTurnSide) {
    signals.turnedAsAsked = (challenge.headTurnSide === 'left' ? m.turnLeftDegrees : m.turnRightDegrees) >= thresholds.sideTurnMinYawDegrees;
  }
  if (m.documentSimilarity !== null) signals.matchesDocument = m.documentSimilarity >= thresholds.minDocumentSimilarity;
  const motion: SignalName[] = challenge.headTurnSide ? ['turnedAsAsked'] : signals.blink ? ['blink'] : ['headTurn'];
  const required: SignalName[] = ['oneFace', 'nonRigid', 'stableIdentity', ...motion, ...(m.documentSimilarity !== null ? ['matchesDocument' as const] : [])];
  const names = Object.keys(signals) as SignalName[];
  const share = names.filter((name) => signals[name]).length / names.length;
  const others = names.filter((name) => !required.includes(name));
  const othersShare = others.length ? others.filter((name) => signals[name]).length / others.length : 1;
  const stillPhoto = !signals.blink && !signals.headTurn && !signals.nonRigid && m.framesWithOneFace >= thresholds.minFramesForReplayCall;
  const livenessScore = required.every((name) => signals[name]) ? 0.9 + othersShare / 10 : stillPhoto ? Math.min(share, 0.3) : 0.5 + share / 4;
  return {
    measurements,
    signals,
    livenessScore: Math.round(livenessScore * 100) / 100,
    presentationAttackDetected: stillPhoto,
    attackType: stillPhoto ? 'suspected-photo-replay' : null,
  };
}
