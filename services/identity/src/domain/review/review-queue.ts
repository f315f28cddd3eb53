import { and, asc, count, eq, gt, ilike, min, sql, type SQL } from 'drizzle-orm';
import { caseClaims, fraudSignals, staffUsers, tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import type { CaseStatus, DocumentType } from '../cases/case-states.js';
import { pageOf } from '../common/paging.js';

export interface ReviewQueueQuery {
  page: number;
  pageSize: number;
  tenantId?: string | undefined;
  documentType?: DocumentType | undefined;
  /** Words of the decision reason, or a fraud signal type (e.g. `document_reuse`). */
  reason?: string | undefined;
}

const WAITING = eq(verificationCases.status, 'PendingManualReview');
/** LIKE's wildcards in the text are literal. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

function conditionsOf(query: ReviewQueueQuery): SQL | undefined {
  const conditions: SQL[] = [WAITING];
  if (query.tenantId) conditions.push(eq(verificationCases.tenantId, query.tenantId));
  if (query.documentType) conditions.push(eq(verificationCases.documentType, query.documentType));
  if (query.reason) {
    const bySignal = sql`exists (select 1 from ${fraudSignals} where ${fraudSignals.caseId} = ${verificationCases.id} and ${fraudSignals.type} = ${query.reason})`;
    conditions.push(sql`(${ilike(verificationCases.decisionReason, likeContains(query.reason))} or ${bySignal})`);
  }
  return and(...conditions);
}

/** How long the oldest case has waited for a person (0 when none waits): the console's header and a metric. */
export async function oldestWaitingSeconds(db: IdentityExecutor, now: Date): Promise<number> {
  const [row] = await db.select({ oldest: min(verificationCases.updatedAt) }).from(verificationCases).where(WAITING);
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return oldest ? Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)) : 0;
}

/**
 * Cases waiting for a person, oldest first, across tenants (staff serve every tenant), with why
 * each waits (decision reason, fraud signal types) and who holds a live claim on it. Waiting
 * time counts from the case's last move, which for a waiting case is its move into review.
 */
export async function reviewQueue(db: IdentityExecutor, query: ReviewQueueQuery, now: Date) {
  const where = conditionsOf(query);
  const signalTypes = sql<string[]>`coalesce((select array_agg(distinct ${fraudSignals.type}) from ${fraudSignals} where ${fraudSignals.caseId} = ${verificationCases.id}), '{}')`;
  const [rows, [total], oldest, waitingTenants] = await Promise.all([
    db
      .select({ case: verificationCases, tenantName: tenants.name, signalTypes, claimedBy: staffUsers.email, claimExpiresAt: caseClaims.expiresAt })
      .from(verificationCases)
      .innerJoin(tenants, eq(tenants.id, verificationCases.tenantId))
      .leftJoin(caseClaims, and(eq(caseClaims.caseId, verificationCases.id), gt(caseClaims.expiresAt, now)))
      .leftJoin(staffUsers, eq(staffUsers.id, caseClaims.staffId))
      .where(where)
      .orderBy(asc(verificationCases.updatedAt), asc(verificationCases.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ value: count() }).from(verificationCases).where(where),
    oldestWaitingSeconds(db, now),
    // The tenant filter's choices: every tenant with a case waiting, whatever the other filters.
    db.selectDistinct({ id: tenants.id, name: tenants.name }).from(verificationCases).innerJoin(tenants, eq(tenants.id, verificationCases.tenantId)).where(WAITING).orderBy(tenants.name, tenants.id),
  ]);
  const items = rows.map(({ case: row, tenantName, signalTypes: types, claimedBy, claimExpiresAt }) => ({
    id: row.id,
    tenantId: row.tenantId,
    tenantName,
    sandbox: row.sandbox,
    externalReference: row.externalReference,
    status: row.status as CaseStatus,
    documentType: row.documentType as DocumentType,
    compositeRiskScore: row.compositeRiskScore,
    decisionReason: row.decisionReason,
    fraudSignalTypes: [...types].sort(),
    waitingSeconds: Math.max(0, Math.round((now.getTime() - row.updatedAt.getTime()) / 1000)),
    claim: claimedBy && claimExpiresAt ? { email: claimedBy, expiresAt: claimExpiresAt.toISOString() } : null,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  }));
  return { ...pageOf(items, query, total?.value ?? 0), oldestWaitingSeconds: oldest, tenants: waitingTenants };
}

/** The queue_depth rows of the review queue: waiting cases nobody holds (pending) and those a reviewer holds (in_flight). */
export async function reviewQueueDepth(db: IdentityExecutor, now: Date) {
  const [row] = await db
    .select({
      claimed: sql<number>`count(${caseClaims.caseId})::int`,
      total: sql<number>`count(*)::int`,
      oldest: min(verificationCases.updatedAt),
    })
    .from(verificationCases)
    .leftJoin(caseClaims, and(eq(caseClaims.caseId, verificationCases.id), gt(caseClaims.expiresAt, now)))
    .where(WAITING);
  const claimed = Number(row?.claimed ?? 0);
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return [
    { kind: 'review', status: 'pending', count: Number(row?.total ?? 0) - claimed, oldestCreatedAt: oldest },
    { kind: 'review', status: 'in_flight', count: claimed, oldestCreatedAt: null },
  ];
}
