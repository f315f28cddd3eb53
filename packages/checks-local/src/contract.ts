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
  liveness(input: { video: EvidenceBytes; document: EvidenceBytes | null }): Promise<LivenessAnswer>;
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
