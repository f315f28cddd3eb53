import type { QualityHints } from '@svc/checks-local';
import type { EvidenceVault } from '../evidence/evidence-vault.js';
import type { IdentityExecutor } from '../../db/schema.js';
import type { CaptureSession } from './capture-sessions.js';
import { receiveEvidence, type EvidenceUpload, type UploadLimits } from './evidence-upload.js';
import { hintKindOf, qualityHint } from './quality-hint.js';

export interface TakeEvidenceOptions {
  limits: UploadLimits;
  correlationId: string;
  clock: () => Date;
  uploadGraceMs: number;
  /** Quick looks at live cases' photos; null: quality is always null. */
  qualityHints: { hints: QualityHints; budgetMs: number } | null;
}

/**
 * One piece of evidence taken from the end user, whichever way its bytes came (one multipart
 * request or a finished resumable upload): stored, recorded, and the quick look at it when there
 * is one to give.
 */
export async function takeEvidence(db: IdentityExecutor, storage: EvidenceVault, session: CaptureSession, upload: Omit<EvidenceUpload, 'copy'>, options: TakeEvidenceOptions) {
  const { qualityHints, ...receiveOptions } = options;
  const hints = qualityHints && !session.sandbox && hintKindOf(session.documentType, upload.evidenceType) ? qualityHints : null;
  const copy: Buffer[] | undefined = hints ? [] : undefined;
  const record = await receiveEvidence(db, storage, session, { ...upload, ...(copy ? { copy } : {}) }, receiveOptions);
  const quality =
    hints && copy ? await qualityHint(hints.hints, { documentType: session.documentType, evidenceType: upload.evidenceType, contentType: record.contentType, bytes: Buffer.concat(copy) }, hints.budgetMs) : null;
  return { ...record, quality };
}
