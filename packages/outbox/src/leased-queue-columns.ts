import { sql } from 'drizzle-orm';
import { index, integer, text, timestamp, type PgColumn } from 'drizzle-orm/pg-core';

export const QUEUE_STATUSES = ['pending', 'in_flight', 'succeeded', 'failed'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];
/** Rows still to be worked (waiting or leased): what the due index covers and what depth counts as open. */
export const OPEN_QUEUE_STATUSES = ['pending', 'in_flight'] as const satisfies readonly QueueStatus[];

/**
 * The columns every leased queue table has (deliveries, jobs). The claim and settle SQL in
 * leased-queue.ts reads and writes them by these names, so each table spreads them in
 * rather than declaring its own copy.
 */
export function leasedQueueColumns() {
  return {
    status: text('status', { enum: QUEUE_STATUSES }).notNull().default('pending'),
    /** Counted up when a worker claims the row, before the attempt runs. */
    attemptCount: integer('attempt_count').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Set while in flight: past it, the worker is presumed dead and any worker may claim the row again. */
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    /** The W3C traceparent of the work that queued the row (tracing on), so the worker's attempts continue its trace. */
    traceparent: text('traceparent'),
  };
}

/** The claim query's index: due pending rows and expired leases, oldest first. */
export function dueIndex(tableName: string, table: { status: PgColumn; nextAttemptAt: PgColumn }) {
  return index(`${tableName}_due_idx`).on(table.status, table.nextAttemptAt).where(sql`${table.status} in (${sql.raw(OPEN_QUEUE_STATUSES.map((status) => `'${status}'`).join(', '))})`);
}
