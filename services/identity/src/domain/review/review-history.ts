import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { ForbiddenError } from '@svc/problem-json';
import { reviewDecisions, staffUsers, tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { pageOf } from '../common/paging.js';
import type { StaffPrincipal } from '../accounts/staff.js';

export interface ReviewHistoryQuery {
  page: number;
  pageSize: number;
  /** `mine` (default) or `everyone` (ReviewLead only). */
  scope: 'mine' | 'everyone';
  caseId?: string | undefined;
}

/** Decisions, newest first: a reviewer reads their own, a ReviewLead everyone's. */
export async function reviewHistory(db: IdentityExecutor, staff: StaffPrincipal, query: ReviewHistoryQuery) {
  if (query.scope === 'everyone' && staff.role !== 'ReviewLead') throw new ForbiddenError("Everyone's decisions are for a ReviewLead; a Reviewer sees their own (scope=mine).");
  const conditions: SQL[] = [];
  if (query.scope === 'mine') conditions.push(eq(reviewDecisions.reviewerId, staff.staffId));
  if (query.caseId) conditions.push(eq(reviewDecisions.caseId, query.caseId));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    db
      .select({ decision: reviewDecisions, reviewerEmail: staffUsers.email, tenantName: tenants.name, documentType: verificationCases.documentType })
      .from(reviewDecisions)
      .innerJoin(staffUsers, eq(staffUsers.id, reviewDecisions.reviewerId))
      .innerJoin(verificationCases, eq(verificationCases.id, reviewDecisions.caseId))
      .innerJoin(tenants, eq(tenants.id, verificationCases.tenantId))
      .where(where)
      .orderBy(desc(reviewDecisions.decidedAt), desc(reviewDecisions.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ value: count() }).from(reviewDecisions).where(where),
  ]);
  const items = rows.map(({ decision, reviewerEmail, tenantName, documentType }) => ({
    id: decision.id,
    caseId: decision.caseId,
    tenantName,
    documentType,
    reviewer: { id: decision.reviewerId, email: reviewerEmail },
    decision: decision.decision as 'Approved' | 'Rejected',
    reasonCode: decision.reasonCode,
    reason: decision.reason,
    decidedAt: decision.decidedAt.toISOString(),
  }));
  return pageOf(items, query, total?.value ?? 0);
}
