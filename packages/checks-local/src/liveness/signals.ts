/**
 * Basic liveness signals from the faces Human saw in each video frame, and how they combine
 * into one score. These are heuristics with thresholds set from a handful of synthetic clips,
 * not presentation-attack detection in the ISO 30107-3 sense: the score says which signals
 * were seen, nothing about error rates.
 */
import { faceSimilarity } from '../face/similarity.js';
import type { WorkerFace } from '../face/worker-protocol.js';
import { affineResidual, eyeAspectRatio, median, quantile } from './geometry.js';

export interface LivenessThresholds {
  /** Share of frames that must show exactly one face (and none may show two). */
  minShareWithOneFace: number;
  /** A blink: the eye-aspect ratio falls below this share of its median. */
  blinkEyeAspectShare: number;
  headTurnMinYawDegrees: number;
  /** Mesh residual after a 2-D affine fit to the clearest frame, over face width (median frame). */
  minNonRigidResidual: number;
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
  nonRigidResidual: number;
  identityStability: number;
  documentSimilarity: number | null;
}

export type SignalName = 'oneFace' | 'blink' | 'headTurn' | 'nonRigid' | 'stableIdentity' | 'matchesDocument';

/** Without these a live person in front of the camera was not shown; they gate the score. */
const REQUIRED_SIGNALS: readonly SignalName[] = ['oneFace', 'blink', 'headTurn', 'nonRigid'];

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

export function measureLiveness(frames: readonly WorkerFace[][], documentEmbedding: Float32Array | null): LivenessMeasurements {
  const faces = singleFaces(frames);
  const eyeAspects = faces.map((face) => eyeAspectRatio(face.mesh)).filter(Number.isFinite);
  const yaws = faces.map((face) => face.yawDegrees).filter((yaw): yaw is number => yaw !== null && Number.isFinite(yaw));
  const reference = faces.reduce<WorkerFace | null>((best, face) => (!best || face.score > best.score ? face : best), null);
  const residuals = reference ? faces.map((face) => affineResidual(reference.mesh, face.mesh)).filter(Number.isFinite) : [];
  // Descriptors are computed on a few frames only (they cost more than detection and mesh together).
  const described = faces.filter((face) => face.embedding?.length === 1024);
  const clearest = described.reduce<WorkerFace | null>((best, face) => (!best || face.score > best.score ? face : best), null);
  const stability = clearest ? described.map((face) => faceSimilarity(clearest.embedding!, face.embedding!)) : [];
  const toDocument = documentEmbedding ? described.map((face) => faceSimilarity(documentEmbedding, face.embedding!)) : [];
  return {
    frames: frames.length,
    framesWithOneFace: faces.length,
    framesWithSeveralFaces: frames.filter((faces) => faces.length > 1).length,
    eyeAspectMin: eyeAspects.length ? Math.min(...eyeAspects) : Number.NaN,
    eyeAspectMedian: median(eyeAspects),
    // 5th to 95th percentile: one frame's mesh glitch is not a head turn.
    yawRangeDegrees: yaws.length ? quantile(yaws, 0.95) - quantile(yaws, 0.05) : 0,
    // The median frame: mesh jitter alone puts single frames of a flat photo above real motion.
    nonRigidResidual: median(residuals),
    identityStability: stability.length > 1 ? Math.min(...stability) : 0,
    documentSimilarity: documentEmbedding ? (toDocument.length ? median(toDocument) : 0) : null,
  };
}

/**
 * The score is the share of signals seen, placed so identity's bands mean what they say:
 * - every required signal seen: the plain share (1 with all of them, about 0.83 with one
 *   supporting signal missing, so a threshold of 0.9 passes only clips that show everything);
 * - a required signal missing: 0.5 + share / 4, between 0.5 and 0.75, a person looks at it;
 * - the still-photo pattern (no blink, no head turn, a near-rigid face): at most 0.3, and
 *   presentationAttackDetected, because that is what a photo held to the camera looks like.
 * Human's own `real`/`live` models pass photo replays (measured), so they are not used.
 */
export function judgeLiveness(measurements: LivenessMeasurements, thresholds: LivenessThresholds): LivenessVerdict {
  const m = measurements;
  const signals: Partial<Record<SignalName, boolean>> = {
    oneFace: m.framesWithSeveralFaces === 0 && m.framesWithOneFace >= thresholds.minShareWithOneFace * m.frames,
    blink: m.eyeAspectMin < thresholds.blinkEyeAspectShare * m.eyeAspectMedian,
    headTurn: m.yawRangeDegrees >= thresholds.headTurnMinYawDegrees,
    nonRigid: m.nonRigidResidual >= thresholds.minNonRigidResidual,
    stableIdentity: m.identityStability >= thresholds.minIdentityStability,
  };
  if (m.documentSimilarity !== null) signals.matchesDocument = m.documentSimilarity >= thresholds.minDocumentSimilarity;
  const results = Object.values(signals);
  const share = results.filter(Boolean).length / results.length;
  const requiredSeen = REQUIRED_SIGNALS.every((name) => signals[name]);
  const stillPhoto = !signals.blink && !signals.headTurn && !signals.nonRigid;
  const livenessScore = requiredSeen ? share : stillPhoto ? Math.min(share, 0.3) : 0.5 + share / 4;
  return {
    measurements,
    signals,
    livenessScore: Math.round(livenessScore * 100) / 100,
    presentationAttackDetected: stillPhoto,
    attackType: stillPhoto ? 'suspected-photo-replay' : null,
  };
}
