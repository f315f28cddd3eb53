import { selectRows } from '@svc/db';
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgDatabase, PgQueryResultHKT, PgTable } from 'drizzle-orm/pg-core';

// Any Drizzle database or transaction, whatever its schema type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDatabase = PgDatabase<PgQueryResultHKT, any>;
export type Transaction = Parameters<Parameters<AnyDatabase['transaction']>[0]>[0];

/** The part of a queue row (leased-queue-columns.ts) the core needs to settle it. */
export interface LeasedRow {
  id: string;
  attemptCount: number;
  maxAttempts: number;
}

/** What one attempt came to, as the queue records it. */
export interface AttemptResult {
  succeeded: boolean;
  /** Kept in last_error; null on success. */
  error: string | null;
  /** No further attempt whatever attempts remain (the error will not go away by retrying). */
  permanent?: boolean;
  /** A queue's own columns recorded with the outcome, e.g. sql`last_status_code = ${status}`. */
  recordedColumns?: SQL;
}

/** Settings every worker on a leased queue takes (deliveries, jobs). */
export interface QueueWorkerSettings {
  /** Delay before attempt n+1 after attempt n failed: retryScheduleMs[n] (index 0 is the first attempt's delay); the last entry repeats. */
  retryScheduleMs: readonly number[];
  clock?: () => Date;
  leaseMs?: number;
  batchSize?: number;
  pollIntervalMs?: number;
  /** Identifies this worker in logs. */
  workerId?: string;
  logger?: { warn(object: object, message: string): void; error(object: object, message: string): void };
}

export interface QueueWorker {
  /** Claims and runs one batch; resolves with the number of rows attempted. */
  runOnce(): Promise<number>;
  start(): void;
  /** Stops polling and waits for the batch in flight. */
  stop(): Promise<void>;
  /** Runs a batch as soon as possible (after an enqueue committed). */
  wake(): void;
}

export interface LeasedQueueOptions<Row extends LeasedRow, Result extends AttemptResult> extends QueueWorkerSettings {
  db: AnyDatabase;
  table: PgTable;
  /** Names rows in log messages and log fields (`delivery` → deliveryId). */
  label: string;
  /** Claim only rows whose column holds one of these values (a job worker's kinds); no values, no claims. Absent: every row. */
  claimOnly?: { column: PgColumn; values: readonly string[] };
  /** Makes one attempt, outside any transaction; reports failures in its result rather than throwing. */
  attempt: (row: Row) => Promise<Result>;
  /** The result recorded, without an attempt, for a row whose worker was lost during its last allowed attempt. */
  lostAttempt: (error: string) => Result;
  /** Runs in the transaction that records the attempt, only when the row was still this worker's. */
  onSettled?: (tx: Transaction, row: Row, result: Result, final: boolean) => Promise<void>;
}

const LOST_ATTEMPT_ERROR = 'lease expired during the last attempt: its worker is presumed dead';

interface IdRow extends Record<string, unknown> {
  id: string;
}

/**
 * At-least-once processing by any number of workers in any number of processes:
 * - claim: one statement moves due rows (pending and due, or in flight with an expired
 *   lease: a worker that died) to in_flight with a lease, counting the attempt up front so
 *   a row that crashes its worker cannot loop forever (past maxAttempts it is failed, not
 *   run again); FOR UPDATE SKIP LOCKED lets
 *   concurrent workers take disjoint rows without waiting on each other;
 * - attempt outside any transaction (a slow receiver or job holds no locks);
 * - settle: in one transaction, record the outcome only if the row is still ours (same
 *   attempt, still in flight), and run the queue's onSettled bookkeeping with it.
 * Raw SQL by column name (leased-queue-columns.ts) keeps one implementation for every
 * queue table without typing Drizzle's builders over a union of tables.
 */
export function createLeasedQueueWorker<Row extends LeasedRow, Result extends AttemptResult>(options: LeasedQueueOptions<Row, Result>): QueueWorker {
  const clock = options.clock ?? (() => new Date());
  const leaseMs = options.leaseMs ?? 60_000;
  const batchSize = options.batchSize ?? 20;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const { table, db, label, claimOnly } = options;
  if (options.retryScheduleMs.length === 0) throw new Error(`${label} worker: retryScheduleMs needs at least one entry`);

  async function claim(now: Date): Promise<Row[]> {
    if (claimOnly && claimOnly.values.length === 0) return [];
    const onlyClause = claimOnly ? sql`and ${claimOnly.column} in (${sql.join(claimOnly.values.map((value) => sql`${value}`), sql`, `)})` : sql``;
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const claimed = await selectRows<IdRow>(
      db,
      sql`update ${table} set status = 'in_flight', lease_expires_at = ${leaseUntil.toISOString()}, attempt_count = attempt_count + 1
          where id in (
            select id from ${table}
            where ((status = 'pending' and next_attempt_at <= ${now.toISOString()})
               or (status = 'in_flight' and lease_expires_at <= ${now.toISOString()}))
              ${onlyClause}
            order by next_attempt_at
            limit ${batchSize}
            for update skip locked
          )
          returning id`,
    );
    if (claimed.length === 0) return [];
    const ids = claimed.map((row) => sql`${row.id}`);
    // Read back through Drizzle so the rows arrive in the table's own shape (camelCase, Dates).
    const rows: unknown[] = await db
      .select()
      .from(table)
      .where(sql`id in (${sql.join(ids, sql`, `)})`);
    return rows as Row[];
  }

  async function settle(row: Row, result: Result): Promise<void> {
    const now = clock();
    const final = result.succeeded || result.permanent === true || row.attemptCount >= row.maxAttempts;
    const status = result.succeeded ? 'succeeded' : final ? 'failed' : 'pending';
    const assignments = [
      sql`status = ${status}`,
      sql`last_error = ${result.error}`,
      sql`last_attempt_at = ${now.toISOString()}`,
      sql`lease_expires_at = null`,
      sql`completed_at = ${final ? now.toISOString() : null}`,
    ];
    if (!final) {
      const delayMs = options.retryScheduleMs[Math.min(row.attemptCount, options.retryScheduleMs.length - 1)] ?? 0;
      assignments.push(sql`next_attempt_at = ${new Date(now.getTime() + delayMs).toISOString()}`);
    }
    if (result.recordedColumns) assignments.push(result.recordedColumns);
    await db.transaction(async (tx) => {
      const updated = await selectRows<IdRow>(
        tx,
        sql`update ${table} set ${sql.join(assignments, sql`, `)}
            where id = ${row.id} and status = 'in_flight' and attempt_count = ${row.attemptCount}
            returning id`,
      );
      // Our lease expired and another worker took the row: its attempt will record the outcome.
      if (updated.length === 0) return;
      if (options.onSettled) await options.onSettled(tx, row, result, final);
    });
  }

  async function runOnce(): Promise<number> {
    const rows = await claim(clock());
    await Promise.all(
      rows.map(async (row) => {
        try {
          // A lease that expired on the last allowed attempt is reclaimed (counted past maxAttempts)
          // only to be failed: a job that kills its worker must not kill every worker after it.
          const result = row.attemptCount > row.maxAttempts ? options.lostAttempt(LOST_ATTEMPT_ERROR) : await options.attempt(row);
          await settle(row, result);
        } catch (error) {
          // The lease runs out and another attempt follows: at-least-once, never lost.
          options.logger?.error({ err: error, [`${label}Id`]: row.id }, `could not record a ${label} attempt`);
        }
      }),
    );
    return rows.length;
  }

  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();
  let wakeRequested = false;
  let inFlight = false;

  function schedule(delayMs: number): void {
    if (!running) return;
    clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
  }

  function tick(): void {
    wakeRequested = false;
    inFlight = true;
    current = runOnce()
      .then((count) => {
        inFlight = false;
        schedule(count === batchSize || wakeRequested ? 0 : pollIntervalMs);
      })
      .catch((error: unknown) => {
        inFlight = false;
        options.logger?.warn({ err: error, workerId: options.workerId }, `${label} worker batch failed; retrying after the poll interval`);
        schedule(pollIntervalMs);
      });
  }

  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await current.catch(() => undefined);
    },
    wake() {
      wakeRequested = true;
      // A batch in flight picks the request up when it finishes; never two batches at once in one process.
      if (running && !inFlight) schedule(0);
    },
  };
}
