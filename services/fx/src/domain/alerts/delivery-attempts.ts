import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { alertDeliveryAttempts } from '../../db/schema.js';

/** Attempts kept per webhook: what the dashboard's delivery log shows. */
export const ATTEMPT_LOG_SIZE = 50;

export interface RecordedAttempt {
  alertId: string;
  kind: 'alert' | 'test';
  at: Date;
  statusCode: number;
  latencyMs: number | null;
  error: string | null;
}

/**
 * Writes one attempt and drops the webhook's attempts beyond the newest ATTEMPT_LOG_SIZE, in the
 * caller's transaction, so the log never grows past its size by more than what is in flight at once.
 */
export async function recordAttempt(tx: FxExecutor, attempt: RecordedAttempt): Promise<void> {
  await tx.insert(alertDeliveryAttempts).values({
    alertId: attempt.alertId,
    kind: attempt.kind,
    attemptedUtc: attempt.at,
    statusCode: attempt.statusCode,
    latencyMs: attempt.latencyMs === null ? null : Math.max(0, Math.round(attempt.latencyMs)),
    // An error is a diagnostic, not a store: a receiver's long message is cut.
    error: attempt.error?.slice(0, 500) ?? null,
  });
  // The oldest id still kept; everything older goes (none while there are fewer than the log's size).
  const oldestKept = tx
    .select({ id: alertDeliveryAttempts.id })
    .from(alertDeliveryAttempts)
    .where(eq(alertDeliveryAttempts.alertId, attempt.alertId))
    .orderBy(desc(alertDeliveryAttempts.id))
    .offset(ATTEMPT_LOG_SIZE - 1)
    .limit(1);
  await tx.delete(alertDeliveryAttempts).where(and(eq(alertDeliveryAttempts.alertId, attempt.alertId), lt(alertDeliveryAttempts.id, sql`(${oldestKept})`)));
}

/** The webhook's logged attempts, newest first. */
export async function listAttempts(db: FxExecutor, alertId: string) {
  const rows = await db.select().from(alertDeliveryAttempts).where(eq(alertDeliveryAttempts.alertId, alertId)).orderBy(desc(alertDeliveryAttempts.id)).limit(ATTEMPT_LOG_SIZE);
  return rows.map((row) => ({ attemptedUtc: row.attemptedUtc.toISOString(), kind: row.kind, statusCode: row.statusCode, latencyMs: row.latencyMs, error: row.error }));
}
