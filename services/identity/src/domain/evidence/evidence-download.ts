import { ForbiddenError, NotFoundError } from '@svc/problem-json';
import { eq } from 'drizzle-orm';
import { evidence, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../audit.js';
import type { CaseActor } from '../cases/case-transitions.js';
import { EvidenceObjectMissingError, type EvidenceStorage, type StoredObject } from './evidence-storage.js';

export interface EvidenceDownload extends StoredObject {
  contentType: string;
  fileName: string;
  sha256Hash: string;
}

/**
 * Opens an evidence file for its tenant. Another tenant's evidence is 403, as the spec says
 * (unlike cases, where another tenant's id reads as unknown). Every access is audited before
 * the first byte leaves.
 */
export async function openEvidenceDownload(db: IdentityExecutor, storage: EvidenceStorage, tenantId: string, evidenceId: string, actor: CaseActor, now: Date): Promise<EvidenceDownload> {
  const [row] = await db.select().from(evidence).where(eq(evidence.id, evidenceId));
  if (!row) throw new NotFoundError(`No evidence with id ${evidenceId}.`);
  if (row.tenantId !== tenantId) throw new ForbiddenError('This evidence belongs to another tenant.');
  let stored: StoredObject;
  try {
    stored = await storage.get(row.storageKey);
  } catch (error) {
    if (error instanceof EvidenceObjectMissingError) throw new NotFoundError(`The file of evidence ${evidenceId} is no longer stored.`);
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

/** RFC 6266: an ASCII fallback name plus the exact UTF-8 name, neither able to break the header. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\;]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
