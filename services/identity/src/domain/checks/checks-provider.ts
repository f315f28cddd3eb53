import type { Readable } from 'node:stream';
import type { DocumentType, EvidenceType } from '../cases/case-states.js';

/** One stored evidence file, opened only when a check reads it (byte for byte, as uploaded). */
export interface EvidenceFile {
  evidenceType: EvidenceType;
  contentType: string;
  sizeBytes: number;
  sha256Hex: string;
  open(): Promise<Readable>;
}

/** Model answers only: thresholds, latency and timestamps are the service's, never the provider's. */
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

/**
 * What automated checks need from a provider: three inference calls. Small on purpose, so an
 * HTTP provider, an on-CPU one and the sandbox simulator are interchangeable behind it.
 * Throw TransientProviderError for what a retry may fix; anything else fails the case.
 */
export interface ChecksProvider {
  readonly name: string;
  ocr(input: { documentType: DocumentType; front: EvidenceFile; back: EvidenceFile | null; externalReference: string | null }): Promise<OcrAnswer>;
  faceMatch(input: { document: EvidenceFile; selfie: EvidenceFile; externalReference: string | null }): Promise<FaceMatchAnswer>;
  liveness(input: { video: EvidenceFile; externalReference: string | null }): Promise<LivenessAnswer>;
}

/** A provider outage, timeout or 5xx: the job is tried again on the retry schedule. */
export class TransientProviderError extends Error {
  override name = 'TransientProviderError';
}
