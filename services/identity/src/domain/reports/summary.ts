import { and, count, eq, gte, lte, sql } from 'drizzle-orm';
import { reviewDecisions, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { CASE_STATUSES, type CaseStatus } from '../cases/case-states.js';
import type { ReportWindow } from './report-window.js';

/** The states whose cases were decided; the automation rate is measured among them. */
const DECIDED_STATUSES: readonly CaseStatus[] = ['Approved', 'Rejected'];

// Drizzle writes columns unqualified in a single-table select, where "id" inside the subquery
// would mean review_decisions.id: the outer case's id is spelled out with its table.
const outerCaseId = sql`${verificationCases}.${sql.identifier(verificationCases.id.name)}`;

export interface StatusCount {
  status: string;
  cases: number;
  /** Decided cases of this status that no reviewer touched (0 for every other status). */
  decidedWithoutReview: number;
}

export interface CasesSummary {
  from: string;
  to: string;
  totalCases: number;
  byStatus: Record<CaseStatus, number>;
  automationRate: number;
}

/**
 * The tenant's cases created in the window, counted per status in one statement. The review
 * look-up runs only for decided cases (the `filter` guards it), through review_decisions'
 * case index; every other case is only counted.
 */
export async function countCasesByStatus(db: IdentityExecutor, tenantId: string, window: ReportWindow): Promise<StatusCount[]> {
  const decided = sql.join(
    DECIDED_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  );
  return db
    .select({
      status: verificationCases.status,
      cases: count(),
      decidedWithoutReview: sql<number>`count(*) filter (where ${verificationCases.status} in (${decided})
        and not exists (select 1 from ${reviewDecisions} review where review.case_id = ${outerCaseId}))`.mapWith(Number),
    })
    .from(verificationCases)
    .where(and(eq(verificationCases.tenantId, tenantId), gte(verificationCases.createdAt, window.from), lte(verificationCases.createdAt, window.to)))
    .groupBy(verificationCases.status);
}

/**
 * The spec's report from the per-status counts (pure). automationRate is the share of decided
 * cases (Approved or Rejected) that have no manual review decision: the automated checks
 * alone decided them. 0 when nothing was decided, so the field is always a number; rounded to
 * 4 decimals (a percentage with two).
 */
export function summariseCases(rows: readonly StatusCount[], window: ReportWindow): CasesSummary {
  const byStatus = Object.fromEntries(CASE_STATUSES.map((status) => [status, 0])) as Record<CaseStatus, number>;
  let decided = 0;
  let automated = 0;
  for (const row of rows) {
    // Only the eleven states are reported; a status the code does not know would be a bug elsewhere, not a new key.
    if (!(CASE_STATUSES as readonly string[]).includes(row.status)) continue;
    const status = row.status as CaseStatus;
    byStatus[status] = row.cases;
    if (DECIDED_STATUSES.includes(status)) {
      decided += row.cases;
      automated += row.decidedWithoutReview;
    }
  }
  const totalCases = CASE_STATUSES.reduce((sum, status) => sum + byStatus[status], 0);
  return {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    totalCases,
    byStatus,
    automationRate: decided === 0 ? 0 : Math.round((automated / decided) * 10_000) / 10_000,
  };
}

export async function summariseTenantCases(db: IdentityExecutor, tenantId: string, window: ReportWindow): Promise<CasesSummary> {
  return summariseCases(await countCasesByStatus(db, tenantId, window), window);
}
