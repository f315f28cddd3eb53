import { PermanentJobError, type Job } from '@svc/outbox';
import { and, eq, sql } from 'drizzle-orm';
import { auditLog, evidence, fraudSignals, ocrResults, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { lockCase, recordCaseEvent } from '../cases/case-transitions.js';
import type { EvidenceVault } from '../evidence/evidence-vault.js';

const ACTOR = 'system:redaction';
export const REDACTED_EVENT_TYPE = 'verification.redacted';

export interface RedactCaseOptions {
  db: IdentityExecutor;
  vault: EvidenceVault;
  clock: () => Date;
  /** Tests stop a run between its steps here, as a kill -9 would. */
  afterStep?: (step: 'keys-destroyed' | 'objects-deleted') => Promise<void>;
}

/**
 * The redact-case job. Three steps, each safe to run again, so a worker killed anywhere
 * leaves work the next attempt finishes:
 * 1. destroy the data keys (crypto-shredding): from this commit on, the objects and every
 *    backup of them are unreadable, whatever happens to the deletes;
 * 2. delete the objects (current and replaced ones);
 * 3. blank the personal fields and record `redactedAt`, the audit row and the
 *    `verification.redacted` event in one transaction.
 * Kept: status, decision, scores, timestamps, fraud signal types, evidence hashes and sizes,
 * externalReference, the audit trail (with corrected OCR values masked).
 */
export function createRedactCaseHandler(options: RedactCaseOptions): (job: Job) => Promise<void> {
  const { db, vault, clock } = options;
  return async (job) => {
    const { caseId } = JSON.parse(job.payload) as { caseId: string };
    const [found] = await db.select().from(verificationCases).where(eq(verificationCases.id, caseId));
    if (!found) throw new PermanentJobError(`case ${caseId} does not exist`);
    if (found.redactedAt) return;
    if (!found.redactionRequestedAt) throw new PermanentJobError(`case ${caseId} was not asked to be redacted`);

    await db.update(evidence).set({ sealedDataKey: null }).where(eq(evidence.caseId, caseId));
    await options.afterStep?.('keys-destroyed');

    const objects = await db.select({ storageKey: evidence.storageKey }).from(evidence).where(eq(evidence.caseId, caseId));
    for (const object of objects) await vault.delete(object.storageKey);
    await options.afterStep?.('objects-deleted');

    await db.transaction(async (tx) => {
      const locked = await lockCase(tx, caseId, null);
      if (locked.redactedAt) return;
      const now = clock();
      await blankPersonalData(tx, caseId);
      const [updated] = await tx.update(verificationCases).set({ redactedAt: now, updatedAt: now, applicantGivenNames: null, applicantSurname: null }).where(eq(verificationCases.id, caseId)).returning();
      await writeAudit(tx, { tenantId: locked.tenantId, actor: ACTOR, action: 'verification.redacted', target: `case:${caseId}`, after: { evidenceObjectsDeleted: objects.length } }, now);
      await recordCaseEvent(tx, updated!, now, REDACTED_EVENT_TYPE);
    });
  };
}

async function blankPersonalData(tx: IdentityExecutor, caseId: string): Promise<void> {
  // OCR fields and MRZ hold the name, number and date of birth; the number's digest stays for reuse detection.
  await tx.update(ocrResults).set({ extractedFieldsJson: '{}', mrzRawText: null, documentNumber: null }).where(eq(ocrResults.caseId, caseId));
  // A file name can be a person's name ("jane-doe-passport.jpg"); the type says enough.
  await tx.update(evidence).set({ originalFileName: evidence.evidenceType, sealedDataKey: null }).where(eq(evidence.caseId, caseId));
  // The type is what a partner keeps; details can quote the document (dates, MRZ failures).
  await tx.update(fraudSignals).set({ detail: 'Redacted with the case.' }).where(eq(fraudSignals.caseId, caseId));
  // Corrections keep who changed which field and when, not the values (each becomes "[redacted]") nor the notes.
  await tx
    .update(auditLog)
    .set({
      before: sql`jsonb_build_object('fields', (select coalesce(jsonb_object_agg(key, '[redacted]'), '{}'::jsonb) from jsonb_object_keys(coalesce(${auditLog.before}->'fields', '{}'::jsonb)) key))`,
      after: sql`jsonb_build_object('fields', (select coalesce(jsonb_object_agg(key, '[redacted]'), '{}'::jsonb) from jsonb_object_keys(coalesce(${auditLog.after}->'fields', '{}'::jsonb)) key))`,
    })
    .where(and(eq(auditLog.target, `case:${caseId}`), eq(auditLog.action, 'verification.ocr_fields_corrected')));
}
