import { selectRows } from '@svc/db';
import { DECIDED_CASE_STATUSES, UNDECIDED_CASE_STATUSES } from '@svc/identity-client/types';
import { notifyWorkers } from '@svc/outbox';
import { and, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { auditLog, jobs, tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { JOBS_CHANNEL, REDACT_CASE_JOB } from '../jobs/job-kinds.js';
import { enqueueRedaction, markRequested } from './request-redaction.js';

const DAY_MS = 86_400_000;
const DECIDED = DECIDED_CASE_STATUSES;
const UNDECIDED = UNDECIDED_CASE_STATUSES;

export interface RetentionPolicy {
  now: Date;
  /** Expired, cancelled and failed cases; decided ones follow their tenant's evidenceRetentionDays. */
  undecidedRetentionDays: number;
  auditRetentionDays: number;
  batchSize: number;
}

/** Closed cases past their retention and not yet handed to redaction. */
function dueCondition(policy: RetentionPolicy): SQL {
  const undecidedCutoff = new Date(policy.now.getTime() - policy.undecidedRetentionDays * DAY_MS);
  return and(
    sql`${verificationCases.redactionRequestedAt} is null and ${verificationCases.completedAt} is not null`,
    // A scalar subquery rather than a join: FOR UPDATE OF cannot name a schema-qualified table.
    sql`((${inArray(verificationCases.status, DECIDED)} and ${verificationCases.completedAt} <= ${policy.now.toISOString()}::timestamptz
        - make_interval(days => (select t.evidence_retention_days from ${tenants} t where t.id = ${verificationCases.tenantId})))
      or (${inArray(verificationCases.status, UNDECIDED)} and ${verificationCases.completedAt} <= ${undecidedCutoff.toISOString()}::timestamptz))`,
  )!;
}

/**
 * One sweep: hands up to `batchSize` cases past their retention to redaction (each marked,
 * audited and queued in this transaction), re-queues redactions whose job gave up, and deletes
 * audit entries older than AUDIT_RETENTION_DAYS. SKIP LOCKED lets several workers sweep at once
 * without waiting on each other or taking the same case twice.
 */
export async function sweepRetention(db: IdentityExecutor, policy: RetentionPolicy): Promise<{ requested: number; requeued: number; auditEntriesDeleted: number }> {
  const requested = await db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(verificationCases)
      .where(dueCondition(policy))
      .orderBy(verificationCases.completedAt)
      .limit(policy.batchSize)
      .for('update', { skipLocked: true });
    for (const row of due) await markRequested(tx, row, { actor: 'system:retention', reason: 'retention' }, policy.now);
    if (due.length > 0) await notifyWorkers(tx, JOBS_CHANNEL);
    return due.length;
  });
  const requeued = await db.transaction(async (tx) => {
    const stuck = await tx
      .select()
      .from(verificationCases)
      .where(
        sql`${verificationCases.redactionRequestedAt} is not null and ${verificationCases.redactedAt} is null
          and not exists (select 1 from ${jobs} j where j.subject_id = ${verificationCases.id} and j.kind = ${REDACT_CASE_JOB} and j.status <> 'failed' and j.status <> 'succeeded')`,
      )
      .limit(policy.batchSize)
      .for('update', { skipLocked: true });
    for (const row of stuck) await enqueueRedaction(tx, row, policy.now);
    if (stuck.length > 0) await notifyWorkers(tx, JOBS_CHANNEL);
    return stuck.length;
  });
  const auditCutoff = new Date(policy.now.getTime() - policy.auditRetentionDays * DAY_MS);
  const deleted = await selectRows<{ id: number }>(
    db,
    sql`delete from ${auditLog} where id in (select id from ${auditLog} where ${lt(auditLog.at, auditCutoff)} limit ${policy.batchSize * 10}) returning id`,
  );
  return { requested, requeued, auditEntriesDeleted: deleted.length };
}

/** What waits: cases past retention not yet requested, and requested ones not yet redacted (health and metrics). */
export async function retentionBacklog(db: IdentityExecutor, policy: Pick<RetentionPolicy, 'now' | 'undecidedRetentionDays'>): Promise<{ due: number; redacting: number }> {
  const full = { ...policy, auditRetentionDays: 0, batchSize: 0 };
  const [due] = await db.select({ count: sql<number>`count(*)::int` }).from(verificationCases).where(dueCondition(full));
  const [redacting] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(verificationCases)
    .where(sql`${verificationCases.redactionRequestedAt} is not null and ${verificationCases.redactedAt} is null`);
  return { due: Number(due?.count ?? 0), redacting: Number(redacting?.count ?? 0) };
}
