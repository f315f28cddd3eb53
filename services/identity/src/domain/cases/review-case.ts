import { asc, count, eq } from 'drizzle-orm';
import { reviewDecisions, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import type { CaseStatus, DocumentType } from './case-states.js';
import { InvalidCaseStateError, lockCase, transitionCase } from './case-transitions.js';
import { pageOf } from './read-cases.js';

export type ReviewDecision = 'Approved' | 'Rejected';

/**
 * A reviewer decides a case waiting for review: the decision item, the move, its audit row and
 * event commit together. Any other state is a 409 naming it (the case moved on, or never needed
 * a person), so two reviewers racing on one case produce one decision.
 */
export async function reviewCase(
  tx: IdentityExecutor,
  input: { caseId: string; reviewerId: string; decision: ReviewDecision; reason: string; correlationId: string },
  now: Date,
): Promise<{ caseId: string; status: CaseStatus }> {
  const locked = await lockCase(tx, input.caseId, null);
  if (locked.status !== 'PendingManualReview') {
    throw new InvalidCaseStateError(locked.id, locked.status as CaseStatus, 'be reviewed (only a case in PendingManualReview can)', { conflictEvenIfClosed: true });
  }
  await tx.insert(reviewDecisions).values({ caseId: locked.id, reviewerId: input.reviewerId, decision: input.decision, reason: input.reason, decidedAt: now });
  const updated = await transitionCase(tx, locked, {
    trigger: input.decision === 'Approved' ? 'approve' : 'reject',
    action: 'be reviewed',
    actor: { actor: `staff:${input.reviewerId}`, correlationId: input.correlationId },
    now,
    decision: { decisionReason: `Manual review: ${input.reason}` },
  });
  return { caseId: updated.id, status: updated.status as CaseStatus };
}

/** Cases waiting for a person, oldest first, across tenants (staff serve every tenant). */
export async function reviewQueue(db: IdentityExecutor, query: { page: number; pageSize: number }) {
  const where = eq(verificationCases.status, 'PendingManualReview');
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(verificationCases)
      .where(where)
      .orderBy(asc(verificationCases.createdAt), asc(verificationCases.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ value: count() }).from(verificationCases).where(where),
  ]);
  const items = rows.map((row) => ({
    id: row.id,
    tenantId: row.tenantId,
    sandbox: row.sandbox,
    externalReference: row.externalReference,
    status: row.status as CaseStatus,
    documentType: row.documentType as DocumentType,
    compositeRiskScore: row.compositeRiskScore,
    decisionReason: row.decisionReason,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  }));
  return pageOf(items, query, total?.value ?? 0);
}
