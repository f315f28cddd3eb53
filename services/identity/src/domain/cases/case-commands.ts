import { NotFoundError, ValidationError } from '@svc/problem-json';
import { eq } from 'drizzle-orm';
import { ocrResults, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { isTerminal, type CaseStatus } from './case-states.js';
import { InvalidCaseStateError, lockCase, transitionCase } from './case-transitions.js';
import { type CaseActor } from '../common/actor.js';
import { toOcrResult } from './read-cases.js';

/** Partner cancel: the reason goes to the audit row and the event follows the move. */
export async function cancelCase(tx: IdentityExecutor, tenantId: string, caseId: string, reason: string, actor: CaseActor, now: Date): Promise<void> {
  const locked = await lockCase(tx, caseId, tenantId);
  await transitionCase(tx, locked, { trigger: 'cancel', action: 'be cancelled', actor, now, auditDetail: { reason } });
}

/**
 * Corrects extracted OCR fields. Keys must already exist (a correction, not an addition);
 * the audit row keeps each changed field before and after, with the partner's notes. The
 * stored object keeps its key order, so the partner sees the same document with new values.
 */
export async function correctOcrFields(
  tx: IdentityExecutor,
  tenantId: string,
  caseId: string,
  input: { fields: Record<string, string>; notes?: string | undefined },
  actor: CaseActor,
  now: Date,
  /** The corrected number is kept only as its digest (reuse detection sees the correction). */
  documentNumberDigest: (documentNumber: string) => string,
) {
  const locked = await lockCase(tx, caseId, tenantId);
  const status = locked.status as CaseStatus;
  if (isTerminal(status)) throw new InvalidCaseStateError(caseId, status, 'have its OCR fields corrected');
  const [ocr] = await tx.select().from(ocrResults).where(eq(ocrResults.caseId, caseId)).for('update');
  if (!ocr) throw new NotFoundError(`Case ${caseId} has no OCR result yet; fields can be corrected once automated checks have extracted them.`);
  const extracted = JSON.parse(ocr.extractedFieldsJson) as Record<string, unknown>;
  const unknown = Object.keys(input.fields).filter((key) => !Object.hasOwn(extracted, key));
  if (unknown.length > 0) {
    throw new ValidationError(
      `fields may only correct extracted fields; unknown: ${unknown.map((key) => `"${key}"`).join(', ')}. Extracted fields: ${Object.keys(extracted).join(', ') || '(none)'}.`,
      unknown.map((key) => ({ path: `body.fields.${key}`, message: 'is not an extracted field of this case' })),
    );
  }
  const before: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input.fields)) {
    before[key] = extracted[key];
    extracted[key] = value;
  }
  const [updated] = await tx
    .update(ocrResults)
    .set({
      extractedFieldsJson: JSON.stringify(extracted),
      // Kept in step so reuse detection sees the corrected number.
      ...(input.fields.documentNumber === undefined
        ? {}
        : { documentNumber: null, documentNumberDigest: input.fields.documentNumber.trim() ? documentNumberDigest(input.fields.documentNumber.trim()) : null }),
      updatedAt: now,
    })
    .where(eq(ocrResults.caseId, caseId))
    .returning();
  if (!updated) throw new Error(`OCR result of case ${caseId} vanished while locked`);
  await writeAudit(
    tx,
    {
      tenantId,
      actor: actor.actor,
      action: 'verification.ocr_fields_corrected',
      target: `case:${caseId}`,
      correlationId: actor.correlationId ?? null,
      before: { fields: before },
      after: { fields: input.fields, notes: input.notes ?? null },
    },
    now,
  );
  return toOcrResult(updated);
}
