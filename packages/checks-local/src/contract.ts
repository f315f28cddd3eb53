/**
 * The checks-provider contract's answers, declared here once: identity's providers (this
 * package on the CPU, the HTTP provider, the sandbox simulator) all answer these shapes. Model
 * answers only; thresholds, latency and timestamps are the calling service's.
 */
export interface OcrAnswer {
  modelName: string;
  modelVersion: string;
  confidenceScore: number;
  fields: Record<string, string>;
  /** Fields the check looked for but could not read with confidence: left out of `fields`, for a person to confirm. */
  fieldsToConfirm?: string[];
  mrzRawText: string | null;
  hasManipulationIndicators: boolean;
}

export interface FaceMatchAnswer {
  modelName: string;
  modelVersion: string;
  similarityScore: number;
}

export interface LivenessAnswer {
  modelName: string;
  modelVersion: string;
  livenessScore: number;
  presentationAttackDetected: boolean;
  attackType: string | null;
}

export type DocumentType = 'SyrianNationalId' | 'SyrianPassport';

/** One uploaded file, whole in memory (evidence is at most 50 MB), with its sniffed content type. */
export interface EvidenceBytes {
  contentType: string;
  bytes: Buffer;
}

export interface LocalChecks {
  ocr(input: { documentType: DocumentType; front: EvidenceBytes; back: EvidenceBytes | null }): Promise<OcrAnswer>;
  faceMatch(input: { document: EvidenceBytes; selfie: EvidenceBytes }): Promise<FaceMatchAnswer>;
  /** `challenge.headTurnSide`: the side the user was asked to turn to; without it a blink or a turn either way will do. */
  liveness(input: { video: EvidenceBytes; document: EvidenceBytes | null; challenge?: { headTurnSide?: 'left' | 'right' } }): Promise<LivenessAnswer>;
}

/**
 * The check cannot give an answer worth acting on (no face found, no MRZ band, a model or
 * ffmpeg missing, a time-out): the case goes to a person with this reason, never to a pass.
 * `reason` reaches partners in the case's decisionReason: no paths, hosts or stack traces.
 */
export class ManualReviewRequiredError extends Error {
  override name = 'ManualReviewRequiredError';
  constructor(readonly reason: string, options?: { cause?: unknown }) {
    super(reason, options);
  }
}

/**
 * What the mobile app asks for. The check passes a clip that shows a blink or a head turn of at
 * least `headTurnMinYawDegrees` (as the face model measures yaw, which reads lower than the turn
 * made); it reads at most `maxDurationSeconds`, and only a clip that long can be told apart from
 * a photo held still when the person does neither (see docs/checks-on-cpu.md).
 */
export const LIVENESS_CHALLENGE = {
  blink: true,
  headTurnMinYawDegrees: 8,
  minDurationSeconds: 2,
  maxDurationSeconds: 6,
  instructions:
    'Hold the phone at eye level with only your face in view. Record for 6 seconds: look at the camera, blink once, then slowly turn your head to one side and back.',
} as const satisfies {
  blink: true;
  headTurnMinYawDegrees: number;
  minDurationSeconds: number;
  maxDurationSeconds: number;
  instructions: string;
};
