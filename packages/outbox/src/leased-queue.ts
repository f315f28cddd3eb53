import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { getTableName, type SQL } from 'drizzle-orm';
import { inStoredTrace } from '@svc/telemetry';
import { HeldRows } from './held-rows.js';
import { renewLeasesEvery } from './lease-renewal.js';
import { queueStatements, type AnyDatabase, type LeasedRow, type RecordedColumn, type Transaction } from './leased-queue-sql.js';
import { createSettler, type Finished } from './queue-settlement.js';
import { createRetentionPurger } from './retention-purge.js';

export type { AnyDatabase, LeasedRow, RecordedColumn, Transaction } from './leased-queue-sql.js';

/** What one attempt came to, as the queue records it. */
export interface AttemptResult {
  succeeded: boolean;
  /** Kept in last_error; null on success. */
  error: string | null;
  /** No further attempt whatever attempts remain (the error will not go away by retrying). */
  permanent?: boolean;
  /** The next attempt not before this many ms (a receiver's Retry-After), when longer than the schedule's delay. */
  retryAfterMs?: number;
  /** Values of the queue's recordedColumns, by column name, e.g. { last_status_code: 503 }. */
  recorded?: Record<string, string | number | null>;
}

/** Settings every worker on a leased queue takes (deliveries, jobs). */
export interface QueueWorkerSettings {
  /** Delay before attempt n+1 after attempt n failed: retryScheduleMs[n] (index 0 is the first attempt's delay); the last entry repeats. */
  retryScheduleMs: readonly number[];
  clock?: () => Date;
  /**
   * How long a claimed row stays this worker's without news (default 30 s). The lease is
   * renewed every third of it while the attempt runs, so it bounds how long a crashed
   * worker's rows wait, not how long an attempt may take.
   */
  leaseMs?: number;
  /** Rows claimed per statement (default 50). */
  batchSize?: number;
  /** Attempts in flight at once in this worker (default 4 × batchSize): one slow receiver holds one slot, not the queue. */
  concurrency?: number;
  /** How often an idle worker looks for due rows when nothing wakes it (default 1 s). */
  pollIntervalMs?: number;
  /** Spread of retry delays, ± this fraction at random (0.1 = ±10 %), so retries after an outage do not arrive in lockstep. Default 0. */
  jitter?: number;
  /** Retry-After values are honoured up to this many ms (default 24 h). */
  maxRetryAfterMs?: number;
  /**
   * Finished rows (succeeded, failed) completed more than `days` ago are deleted, in batches,
   * when the worker starts and every `intervalMs` (default 1 h) while it runs.
   */
  retention?: { days: number; intervalMs?: number; batchSize?: number };
  /** Identifies this worker in logs. */
  workerId?: string;
  logger?: { warn(object: object, message: string): void; error(object: object, message: string): void };
  /**
   * Called once per attempt whose outcome was recorded (after its statement or transaction
   * committed, and only for rows still this worker's), e.g. to count outcomes for metrics:
   * `succeeded`, `retrying` (failed, another attempt is scheduled) or `gave_up` (failed for good).
   */
  onAttemptRecorded?: (outcome: RecordedOutcome) => void;
}

export type RecordedOutcome = 'succeeded' | 'retrying' | 'gave_up';

export interface QueueWorker {
  /** Claims one batch, runs it and records it; resolves with the number of rows attempted (tests, CLIs). */
  runOnce(): Promise<number>;
  start(): void;
  /** Stops claiming and waits for the attempts in flight to finish and be recorded. */
  stop(): Promise<void>;
  /** Claims due rows as soon as possible (after an enqueue committed, or a notification). */
  wake(): void;
  /** Deletes finished rows past the retention period now; resolves with how many (0 without retention). */
  purgeFinished(): Promise<number>;
}

export interface LeasedQueueOptions<Row extends LeasedRow, Result extends AttemptResult, Context> extends QueueWorkerSettings {
  db: AnyDatabase;
  table: PgTable;
  /** Names rows in log messages and log fields (`delivery` → deliveryId). */
  label: string;
  /** Claim only rows whose column holds one of these values (a job worker's kinds); no values, no claims. Absent: every row. */
  claimOnly?: { column: PgColumn; values: readonly string[] };
  /** A further condition on claimable rows (a delivery's endpoint is active). */
  claimableWhere?: SQL;
  /**
   * At most `perGroup` rows of one group (e.g. one endpoint: its subscription_id) in flight in
   * this worker: one slow receiver's backlog takes that many slots, never the whole worker.
   */
  fairness?: { column: PgColumn; perGroup: number; groupOf: (row: Row) => string };
  recordedColumns?: readonly RecordedColumn[];
  /** Loads what the attempts of one claim share (e.g. their endpoints, in one query). */
  prepare?: (rows: Row[]) => Promise<Context>;
  /** Names an attempt's span (tracing on), e.g. `job run-checks`; default: the label. */
  spanName?: (row: Row) => string;
  /** Makes one attempt, outside any transaction; reports failures in its result rather than throwing. */
  attempt: (row: Row, context: Context) => Promise<Result>;
  /** The result recorded, without an attempt, for a row whose worker was lost during its last allowed attempt. */
  lostAttempt: (error: string) => Result;
  /** Runs in the transaction that records the attempt, only when the row was still this worker's. */
  onSettled?: (tx: Transaction, row: Row, result: Result, final: boolean) => Promise<void>;
  /** Which outcomes onSettled is for (default all); a batch with none is recorded in one statement, no transaction. */
  onSettledFor?: (row: Row, result: Result) => boolean;
}

/**
 * Outcomes per settle statement of the continuous worker, and such statements at once. A worker
 * also sends nothing new while SETTLE_BATCH answered outcomes wait to be written: a crash re-sends
 * about that many answered deliveries, plus the sends still open at the receiver.
 */
const SETTLE_BATCH = 8;
const SETTLE_PARALLEL = 4;

const LOST_ATTEMPT_ERROR = 'lease expired during the last attempt: its worker is presumed dead';

/**
 * At-least-once processing by any number of workers in any number of processes:
 * - claim: one statement moves due rows (pending and due, or in flight with an expired
 *   lease: a worker that died) to in_flight with a lease, counting the attempt up front so
 *   a row that crashes its worker cannot loop forever (past maxAttempts it is failed, not
 *   run again); FOR UPDATE SKIP LOCKED lets concurrent workers take disjoint rows;
 * - attempt outside any transaction, up to `concurrency` at once: a slow receiver holds
 *   one slot and no locks, and the worker claims more as slots free up;
 * - settle: the outcomes that finished meanwhile are written in one transaction, each only
 *   if the row is still ours (same attempt, still in flight), with the queue's onSettled
 *   bookkeeping;
 * - renew: while attempts run, one statement every leaseMs/3 extends their leases, so a
 *   short lease frees a dead worker's rows quickly without cutting a long attempt short.
 */
export function createLeasedQueueWorker<Row extends LeasedRow, Result extends AttemptResult, Context = undefined>(
  options: LeasedQueueOptions<Row, Result, Context>,
): QueueWorker {
  const clock = options.clock ?? (() => new Date());
  const leaseMs = options.leaseMs ?? 30_000;
  const batchSize = options.batchSize ?? 50;
  const concurrency = Math.max(options.concurrency ?? 4 * batchSize, 1);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const { label, retryScheduleMs } = options;
  if (retryScheduleMs.length === 0) throw new Error(`${label} worker: retryScheduleMs needs at least one entry`);
  const statements = queueStatements<Row>({ ...options, leaseMs, fairness: options.fairness && { column: options.fairness.column, perGroup: options.fairness.perGroup } });
  // Claim again only once a good share of the slots is free: fewer, larger claims.
  const claimThreshold = Math.max(1, Math.floor(Math.min(batchSize, concurrency) / 2));
  const settle = createSettler<Row, Result>({
    db: options.db,
    statements,
    clock,
    retryScheduleMs,
    jitter: options.jitter ?? 0,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 86_400_000,
    ...(options.onSettled ? { onSettled: options.onSettled } : {}),
    ...(options.onSettledFor ? { onSettledFor: options.onSettledFor } : {}),
    ...(options.onAttemptRecorded ? { onAttemptRecorded: options.onAttemptRecorded } : {}),
  });
  const purger = createRetentionPurger({
    statements,
    clock,
    retention: options.retention,
    warn: (error) => options.logger?.warn({ err: error, workerId: options.workerId }, `could not delete old ${label} rows`),
  });

  const queueName = getTableName(options.table);
  // Each attempt continues the trace its row was queued in (a no-op with tracing off).
  const tracedAttempt = (row: Row, context: Context) =>
    inStoredTrace(
      row.traceparent,
      () => ({
        name: options.spanName?.(row) ?? label,
        attributes: { 'messaging.operation.type': 'process', 'messaging.destination.name': queueName, 'messaging.message.id': row.id, 'svc.queue.attempt': row.attemptCount },
        failureOf: (result: Result) => (result.succeeded ? null : (result.error ?? 'failed')),
      }),
      () => options.attempt(row, context),
    );

  async function attemptAll(rows: Row[]): Promise<Array<Promise<Finished<Row, Result>>>> {
    const context = options.prepare ? await options.prepare(rows) : (undefined as Context);
    return rows.map(async (row) => {
      // A lease that expired on the last allowed attempt is reclaimed (counted past maxAttempts)
      // only to be failed: a row that kills its worker must not kill every worker after it.
      const result = row.attemptCount > row.maxAttempts ? options.lostAttempt(LOST_ATTEMPT_ERROR) : await tracedAttempt(row, context);
      return { row, result };
    });
  }

  const renewEvery = (rowsHeld: () => Row[]) =>
    renewLeasesEvery({ statements, clock, leaseMs, warn: (error) => options.logger?.warn({ err: error, workerId: options.workerId }, `could not renew ${label} leases`) }, rowsHeld);

  async function runOnce(): Promise<number> {
    const rows = await statements.claim(clock(), batchSize);
    if (rows.length === 0) return 0;
    // A batch run by hand (tests, CLIs) keeps its short leases as the continuous worker does.
    const stopRenewing = renewEvery(() => rows);
    const finished = await Promise.all(await attemptAll(rows)).finally(stopRenewing);
    try {
      await settle(finished);
    } catch (error) {
      // The leases run out and other attempts follow: at-least-once, never lost.
      options.logger?.error({ err: error, workerId: options.workerId }, `could not record ${label} attempts`);
    }
    return rows.length;
  }

  // The continuous worker: claims while slots are free, settles what finished in batches.
  let running = false;
  const held = new HeldRows<Row>(options.fairness?.groupOf);
  const attempts = new Set<Promise<unknown>>();
  const finishedBuffer: Finished<Row, Result>[] = [];
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;
  const settling = new Set<Promise<void>>();
  let settlingRows = 0;
  const unrecorded = () => finishedBuffer.length + settlingRows;
  let pollTimer: NodeJS.Timeout | undefined;
  let stopRenewing = () => undefined as void;

  function schedulePoll(): void {
    if (!running || pollTimer) return;
    pollTimer = setTimeout(() => {
      pollTimer = undefined;
      pump();
    }, pollIntervalMs);
  }

  function pump(): void {
    if (!running) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = claimWhileFree()
      .catch((error: unknown) => {
        options.logger?.warn({ err: error, workerId: options.workerId }, `${label} worker could not claim; retrying after the poll interval`);
        schedulePoll();
      })
      .finally(() => {
        pumping = null;
        if (pumpAgain) {
          pumpAgain = false;
          pump();
        }
      });
  }

  async function claimWhileFree(): Promise<void> {
    while (running) {
      const free = concurrency - held.size;
      // Outcomes not yet written are what a crash would send again although answered: new sends
      // wait while SETTLE_BATCH of them are pending. A slow receiver's open sends do not count.
      const room = SETTLE_BATCH - unrecorded();
      if (free < claimThreshold || room <= 0) return; // settling attempts pump again
      const want = Math.min(batchSize, free, room);
      const rows = await statements.claim(clock(), want, held.perGroup);
      for (const row of rows) held.hold(row);
      if (rows.length > 0) startAttempts(rows);
      if (rows.length < want) {
        schedulePoll();
        return;
      }
    }
  }

  function startAttempts(rows: Row[]): void {
    const started = attemptAll(rows).then(
      (results) => {
        for (const pending of results) {
          const tracked = pending.then((item) => {
            finishedBuffer.push(item);
            settleSoon();
          });
          attempts.add(tracked);
          void tracked.finally(() => attempts.delete(tracked));
        }
      },
      (error: unknown) => {
        // Nothing was attempted: the rows' leases run out and they are claimed again.
        options.logger?.error({ err: error, workerId: options.workerId }, `could not prepare ${label} attempts`);
        for (const row of rows) held.release(row);
      },
    );
    attempts.add(started);
    void started.finally(() => attempts.delete(started));
  }

  const groupOf = options.fairness?.groupOf;
  const byGroup = (a: Finished<Row, Result>, b: Finished<Row, Result>) => (groupOf ? groupOf(a.row).localeCompare(groupOf(b.row)) : 0);

  /**
   * Writes outcomes as they arrive, at most SETTLE_BATCH per statement and up to SETTLE_PARALLEL
   * statements at once: an answer waits for one short write, not for a large batch of the
   * answers before it, so a worker killed at full load leaves few answered rows unrecorded (each
   * is sent again by the next worker, a duplicate at its receiver).
   */
  function settleSoon(): void {
    while (finishedBuffer.length > 0 && settling.size < SETTLE_PARALLEL) {
      // In group order (an endpoint), so concurrent settle transactions whose bookkeeping locks a group's row take those locks in one order.
      const batch = finishedBuffer.splice(0, SETTLE_BATCH).sort(byGroup);
      settlingRows += batch.length;
      const run = settle(batch)
        .catch((error: unknown) => {
          options.logger?.error({ err: error, workerId: options.workerId, count: batch.length }, `could not record ${label} attempts; their leases will run out and they are tried again`);
        })
        .finally(() => {
          settling.delete(run);
          settlingRows -= batch.length;
          for (const { row } of batch) held.release(row);
          // Slots are free now: claim again, and write what arrived meanwhile.
          settleSoon();
          pump();
        });
      settling.add(run);
    }
  }

  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      stopRenewing = renewEvery(() => held.all());
      purger.start();
      pump();
    },
    async stop() {
      running = false;
      clearTimeout(pollTimer);
      pollTimer = undefined;
      const purgeStopped = purger.stop();
      // Attempts in flight finish and are recorded; their leases are renewed meanwhile.
      while (pumping || attempts.size > 0 || settling.size > 0) {
        await Promise.allSettled([pumping, ...settling, ...attempts]);
      }
      stopRenewing();
      await purgeStopped;
    },
    purgeFinished: () => purger.purgeNow(),
    wake() {
      pump();
    },
  };
}
