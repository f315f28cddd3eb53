import type { Readable } from 'node:stream';
import type { FaceMatchAnswer, LivenessAnswer, OcrAnswer } from '@svc/checks-local/contract';
import type { DocumentType, EvidenceType } from '../cases/case-states.js';

/** One stored evidence file, opened only when a check reads it (byte for byte, as uploaded). */
export interface EvidenceFile {
  evidenceType: EvidenceType;
  contentType: string;
  sizeBytes: number;
  sha256Hex: string;
  open(): Promise<Readable>;
}

/**
 * Model answers only: thresholds, latency and timestamps are the service's, never the provider's.
 * The shapes are declared once, by the on-CPU checks package, and every provider answers them.
 */
export type { FaceMatchAnswer, LivenessAnswer, OcrAnswer } from '@svc/checks-local/contract';

/**
 * What automated checks need from a provider: three inference calls. Small on purpose, so an
 * HTTP provider, an on-CPU one and the sandbox simulator are interchangeable behind it.
 * Throw TransientProviderError for what a retry may fix; anything else fails the case.
 */
export interface ChecksProvider {
  readonly name: string;
  ocr(input: { documentType: DocumentType; front: EvidenceFile; back: EvidenceFile | null; externalReference: string | null }): Promise<OcrAnswer>;
  faceMatch(input: { document: EvidenceFile; selfie: EvidenceFile; externalReference: string | null }): Promise<FaceMatchAnswer>;
  /** `document`: the document image, whose portrait the faces in the video should match (a provider may ignore it). */
  liveness(input: { video: EvidenceFile; document: EvidenceFile; externalReference: string | null; headTurnSide?: 'left' | 'right' | null }): Promise<LivenessAnswer>;
  /** Whether the provider can answer now (models and tools present), for the health endpoint. */
  status?(): Promise<ChecksProviderStatus>;
}

export interface ChecksProviderStatus {
  ready: boolean;
  /** What is missing, in words an operator acts on ("ffmpeg is not installed: apt-get install -y ffmpeg"). */
  problems: string[];
}

/** A provider outage, timeout or 5xx: the job is tried again on the retry schedule. */
export class TransientProviderError extends Error {
  override name = 'TransientProviderError';
}

/**
 * The provider cannot give an answer worth acting on (no face found, no readable MRZ, a model or
 * ffmpeg missing, an inference time-out): the case goes to a person with this reason, never to
 * a pass and never to Failed. The package's class, so its errors need no translation.
 */
export { ManualReviewRequiredError } from '@svc/checks-local/contract';
