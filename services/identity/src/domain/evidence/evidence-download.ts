import { ForbiddenError, NotFoundError, ProblemError } from '@svc/problem-json';
import { eq } from 'drizzle-orm';
import { evidence, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import type { CaseActor } from '../common/actor.js';
import { EvidenceObjectMissingError, type StoredObject } from './evidence-storage.js';
import { EvidenceKeyDestroyedError, EvidenceUnreadableError, type EvidenceVault } from './evidence-vault.js';

export interface EvidenceDownload extends StoredObject {
  contentType: string;
  fileName: string;
  sha256Hash: string;
}

/**
 * Opens an evidence file for its tenant. Another tenant's evidence is 403, as the spec says
 * (unlike cases, where another tenant's id reads as unknown). Every access is audited before
 * the first byte leaves. The bytes are decrypted on the way out; an object that fails
 * authentication is EVIDENCE_UNREADABLE (audited; the error handler logs it with the evidence id).
 */
export async function openEvidenceDownload(db: IdentityExecutor, vault: EvidenceVault, tenantId: string, evidenceId: string, actor: CaseActor, now: Date): Promise<EvidenceDownload> {
  const [found] = await db
    .select({ row: evidence, redactionRequestedAt: verificationCases.redactionRequestedAt })
    .from(evidence)
    .innerJoin(verificationCases, eq(verificationCases.id, evidence.caseId))
    .where(eq(evidence.id, evidenceId));
  if (!found) throw new NotFoundError(`No evidence with id ${evidenceId}.`);
  const { row } = found;
  if (row.tenantId !== tenantId) throw new ForbiddenError('This evidence belongs to another tenant.');
  // From the request on, not only once the job is done: a redaction asked for is a promise that nobody reads the file again.
  if (found.redactionRequestedAt !== null) throw new EvidenceRedactedError(evidenceId, row.caseId);
  let stored: StoredObject;
  try {
    stored = await vault.open(row);
  } catch (error) {
    if (error instanceof EvidenceKeyDestroyedError) throw new EvidenceRedactedError(evidenceId, row.caseId);
    if (error instanceof EvidenceObjectMissingError) throw new NotFoundError(`The file of evidence ${evidenceId} is no longer stored.`);
    if (error instanceof EvidenceUnreadableError) {
      await writeAudit(db, { tenantId, actor: actor.actor, action: 'evidence.unreadable', target: `evidence:${evidenceId}`, correlationId: actor.correlationId ?? null, after: { caseId: row.caseId } }, now).catch(() => undefined);
    }
    throw error;
  }
  try {
    await writeAudit(
      db,
      { tenantId, actor: actor.actor, action: 'evidence.downloaded', target: `evidence:${evidenceId}`, correlationId: actor.correlationId ?? null, after: { caseId: row.caseId, sha256Hash: row.sha256Hash } },
      now,
    );
  } catch (error) {
    stored.body.destroy();
    throw error;
  }
  return { ...stored, contentType: row.contentType, fileName: row.originalFileName, sha256Hash: row.sha256Hash };
}

/** 410: the case was redacted (or its redaction is under way); its evidence records stay listed, the bytes are gone. */
export class EvidenceRedactedError extends ProblemError {
  constructor(evidenceId: string, caseId: string) {
    super({
      status: 410,
      code: 'EVIDENCE_REDACTED',
      title: 'Evidence Redacted',
      detail: `Evidence ${evidenceId} belonged to case ${caseId}, which was redacted on request or by the retention policy; its file no longer exists.`,
      extensions: { evidenceId, caseId },
    });
  }
}

/** RFC 6266: an ASCII fallback name plus the exact UTF-8 name, neither able to break the header. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\;]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
