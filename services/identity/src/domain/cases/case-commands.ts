import { NotFoundError, ValidationError } from '@svc/problem-json';
import { eq } from 'drizzle-orm';
import { ocrResults, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { isTerminal, type CaseStatus } from './case-states.js';
import { InvalidCaseStateError, lockCase, transitionCase } from './case-transitions.js';
import { type CaseActor } from '../common/actor.js';
import { FIELDS_TO_CONFIRM_KEY, fieldsToConfirmOf, withFieldsToConfirm } from './fields-to-confirm.js';
import { toOcrResult } from './read-cases.js';

/** Partner cancel: the reason goes to the audit row and the event follows the move. */
export async function cancelCase(tx: IdentityExecutor, tenantId: string, caseId: string, reason: string, actor: CaseActor, now: Date): Promise<void> {
  const locked = await lockCase(tx, caseId, tenantId);
  await transitionCase(tx, locked, { trigger: 'cancel', action: 'be cancelled', actor, now, auditDetail: { reason } });
}

/**
 * Corrects extracted OCR fields. Keys must already exist or be named to confirm (a correction or a
 * confirmation, not an addition); a confirmed field leaves the list of fields to confirm;
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
  const stored = JSON.parse(ocr.extractedFieldsJson) as Record<string, unknown>;
  const toConfirm = fieldsToConfirmOf(stored);
  // A field the reader left to confirm is absent but expected: filling it in is the confirmation.
  const correctable = [...Object.keys(stored).filter((key) => key !== FIELDS_TO_CONFIRM_KEY), ...toConfirm.filter((name) => !Object.hasOwn(stored, name))];
  const unknown = Object.keys(input.fields).filter((key) => !correctable.includes(key));
  if (unknown.length > 0) {
    throw new ValidationError(
      `fields may only correct extracted fields or fill in the fields to confirm; unknown: ${unknown.map((key) => `"${key}"`).join(', ')}. Extracted fields: ${correctable.join(', ') || '(none)'}.`,
      unknown.map((key) => ({ path: `body.fields.${key}`, message: 'is not an extracted field of this case' })),
    );
  }
  const before: Record<string, unknown> = {};
  const extracted: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(input.fields)) {
    before[key] = stored[key] ?? '';
    extracted[key] = value;
  }
  const stillToConfirm = toConfirm.filter((name) => !(typeof extracted[name] === 'string' && extracted[name].trim() !== ''));
  const [updated] = await tx
    .update(ocrResults)
    .set({
      extractedFieldsJson: JSON.stringify(withFieldsToConfirm(extracted, stillToConfirm)),
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
