import { selectRows, type SqlExecutor } from '@svc/db';
import { and, eq, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { Delivery, DeliveryTable } from './delivery-table.js';

// Any Drizzle database or transaction, whatever its schema type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDatabase = PgDatabase<PgQueryResultHKT, any>;
type Transaction = Parameters<Parameters<AnyDatabase['transaction']>[0]>[0];

export interface EnqueueDelivery {
  topic: string;
  subscriptionId: string;
  payload: string;
  maxAttempts: number;
}

/**
 * Writes deliveries in the caller's transaction: the state change that caused the event
 * and the event itself commit together or not at all (outbox). Call the worker's
 * `wake()` after the transaction commits to deliver without waiting for the next poll.
 */
export async function enqueueDeliveries(tx: AnyDatabase | Transaction, table: DeliveryTable, deliveries: EnqueueDelivery[], now: Date): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const rows = await (tx as AnyDatabase)
    .insert(table)
    .values(deliveries.map((delivery) => ({ ...delivery, status: 'pending' as const, nextAttemptAt: now, createdAt: now })))
    .returning({ id: table.id });
  return rows.map((row) => row.id);
}

export interface AttemptOutcome {
  /** HTTP status, 0 when no response arrived. */
  status: number;
  error?: string;
}

export interface SettledDelivery {
  delivery: Delivery;
  outcome: AttemptOutcome;
  succeeded: boolean;
  /** True when no further attempt will be made (success, or the last attempt failed). */
  final: boolean;
}

export interface DeliveryWorkerOptions {
  db: AnyDatabase;
  table: DeliveryTable;
  /** Sends one attempt (resolve target and secret, sign, POST); must not throw for network trouble. */
  deliver: (delivery: Delivery) => Promise<AttemptOutcome>;
  /** Runs in the transaction that records the attempt, e.g. to update a webhook's failure count. */
  onSettled?: (tx: Transaction, settled: SettledDelivery) => Promise<void>;
  /** Delay before attempt n+1 after attempt n failed: retryScheduleMs[n] (index 0 is the first attempt's delay). */
  retryScheduleMs: readonly number[];
  clock?: () => Date;
  leaseMs?: number;
  batchSize?: number;
  pollIntervalMs?: number;
  /** Identifies this worker in logs. */
  workerId?: string;
  logger?: { warn(object: object, message: string): void; error(object: object, message: string): void };
}

export interface DeliveryWorker {
  /** Claims and delivers one batch; resolves with the number of deliveries attempted. */
  runOnce(): Promise<number>;
  start(): void;
  /** Stops polling and waits for the batch in flight. */
  stop(): Promise<void>;
  /** Runs a batch as soon as possible (after an enqueue committed). */
  wake(): void;
}

interface ClaimedRow extends Record<string, unknown> {
  id: string;
}

/**
 * At-least-once delivery by any number of workers in any number of processes:
 * - claim: one statement moves due rows (pending and due, or in flight with an expired
 *   lease: a worker that died) to in_flight with a lease, counting the attempt up front so
 *   a delivery that crashes its worker cannot loop forever; FOR UPDATE SKIP LOCKED lets
 *   concurrent workers take disjoint rows without waiting on each other;
 * - send outside any transaction (a slow receiver holds no locks);
 * - settle: in one transaction, record the outcome only if the row is still ours (same
 *   attempt, still in flight), and run the service's onSettled bookkeeping with it.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const clock = options.clock ?? (() => new Date());
  const leaseMs = options.leaseMs ?? 60_000;
  const batchSize = options.batchSize ?? 20;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const { table, db } = options;
  if (options.retryScheduleMs.length === 0) throw new Error('delivery worker: retryScheduleMs needs at least one entry');

  async function claim(now: Date): Promise<Delivery[]> {
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const claimed = await selectRows<ClaimedRow>(
      db as SqlExecutor,
      sql`update ${table} set status = 'in_flight', lease_expires_at = ${leaseUntil.toISOString()}, attempt_count = attempt_count + 1
          where id in (
            select id from ${table}
            where (status = 'pending' and next_attempt_at <= ${now.toISOString()})
               or (status = 'in_flight' and lease_expires_at <= ${now.toISOString()})
            order by next_attempt_at
            limit ${batchSize}
            for update skip locked
          )
          returning id`,
    );
    if (claimed.length === 0) return [];
    const ids = claimed.map((row) => row.id);
    return db
      .select()
      .from(table)
      .where(sql`${table.id} in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);
  }

  async function settle(delivery: Delivery, outcome: AttemptOutcome): Promise<void> {
    const now = clock();
    const succeeded = outcome.status >= 200 && outcome.status < 300;
    const final = succeeded || delivery.attemptCount >= delivery.maxAttempts;
    const delayMs = options.retryScheduleMs[Math.min(delivery.attemptCount, options.retryScheduleMs.length - 1)] ?? 0;
    await db.transaction(async (tx) => {
      const updated = await tx
        .update(table)
        .set({
          status: succeeded ? 'succeeded' : final ? 'failed' : 'pending',
          lastStatusCode: outcome.status,
          lastError: outcome.error ?? null,
          lastAttemptAt: now,
          leaseExpiresAt: null,
          nextAttemptAt: final ? delivery.nextAttemptAt : new Date(now.getTime() + delayMs),
          completedAt: final ? now : null,
        })
        .where(and(eq(table.id, delivery.id), eq(table.status, 'in_flight'), eq(table.attemptCount, delivery.attemptCount)))
        .returning({ id: table.id });
      // Our lease expired and another worker took the row: its attempt will record the outcome.
      if (updated.length === 0) return;
      if (options.onSettled) await options.onSettled(tx, { delivery, outcome, succeeded, final });
    });
  }

  async function runOnce(): Promise<number> {
    const deliveries = await claim(clock());
    await Promise.all(
      deliveries.map(async (delivery) => {
        let outcome: AttemptOutcome;
        try {
          outcome = await options.deliver(delivery);
        } catch (error) {
          outcome = { status: 0, error: (error as Error).message };
        }
        try {
          await settle(delivery, outcome);
        } catch (error) {
          // The lease runs out and another attempt follows: at-least-once, never lost.
          options.logger?.error({ err: error, deliveryId: delivery.id }, 'could not record a delivery attempt');
        }
      }),
    );
    return deliveries.length;
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
        options.logger?.warn({ err: error, workerId: options.workerId }, 'delivery worker batch failed; retrying after the poll interval');
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
