import { and, asc, eq, notLike } from 'drizzle-orm';
import { NotFoundError } from '@svc/problem-json';
import { auditLog, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { CASE_STATUSES, type CaseStatus } from './case-states.js';

export interface CaseHistoryEntry {
  at: string;
  /** The audit action, e.g. `verification.created`, `verification.approve`, `verification.ocr_fields_corrected`. */
  action: string;
  /** `client:<clientId>`, `user:<id>`, `end-user:<sessionId>`, `system:checks`, … */
  actor: string;
  fromStatus: CaseStatus | null;
  toStatus: CaseStatus | null;
  /** The rest of what the audit row recorded: a decision reason, a cancel reason, corrected fields (with `before`, what they replaced). */
  detail: Record<string, unknown> | null;
}

const asStatus = (value: unknown): CaseStatus | null => ((CASE_STATUSES as readonly unknown[]).includes(value) ? (value as CaseStatus) : null);
const asRecord = (value: unknown): Record<string, unknown> | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null);

/**
 * A case's timeline, oldest first, read from the audit trail: every row that names the case as
 * its target (creation, each state change with its reason, OCR corrections, reissued sessions).
 * Another tenant's case is a 404, like every read of a case.
 */
export async function caseHistory(db: IdentityExecutor, tenantId: string, caseId: string): Promise<{ data: CaseHistoryEntry[] }> {
  const [found] = await db
    .select({ id: verificationCases.id })
    .from(verificationCases)
    .where(and(eq(verificationCases.id, caseId), eq(verificationCases.tenantId, tenantId)));
  if (!found) throw new NotFoundError(`No verification case with id ${caseId}.`);
  const rows = await db
    .select({ at: auditLog.at, action: auditLog.action, actor: auditLog.actor, before: auditLog.before, after: auditLog.after })
    .from(auditLog)
    // Reviewers' looks and claims (review.*) are the operator's own trail, not steps of the case.
    .where(and(eq(auditLog.target, `case:${caseId}`), eq(auditLog.tenantId, tenantId), notLike(auditLog.action, 'review.%')))
    .orderBy(asc(auditLog.at), asc(auditLog.id));
  return {
    data: rows.map((row) => {
      const before = asRecord(row.before);
      const { status: toStatus, ...rest } = asRecord(row.after) ?? {};
      // What a correction replaced: the before values beside the after ones.
      const { status: _fromStatus, ...beforeRest } = before ?? {};
      if (Object.keys(beforeRest).length > 0) rest.before = beforeRest;
      return {
        at: row.at.toISOString(),
        action: row.action,
        actor: row.actor,
        fromStatus: asStatus(before?.status),
        toStatus: asStatus(toStatus),
        detail: Object.keys(rest).length > 0 ? rest : null,
      };
    }),
  };
}
