import { sql } from 'drizzle-orm';
import type { Delivery, DeliveryTable } from './delivery-table.js';
import { createLeasedQueueWorker, type AnyDatabase, type AttemptResult, type QueueWorker, type QueueWorkerSettings, type Transaction } from './leased-queue.js';

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

export interface DeliveryWorkerOptions extends QueueWorkerSettings {
  db: AnyDatabase;
  table: DeliveryTable;
  /** Sends one attempt (resolve target and secret, sign, POST); must not throw for network trouble. */
  deliver: (delivery: Delivery) => Promise<AttemptOutcome>;
  /** Runs in the transaction that records the attempt, e.g. to update a webhook's failure count. */
  onSettled?: (tx: Transaction, settled: SettledDelivery) => Promise<void>;
}

export type DeliveryWorker = QueueWorker;

interface DeliveryAttempt extends AttemptResult {
  outcome: AttemptOutcome;
}

function recordedAttempt(outcome: AttemptOutcome): DeliveryAttempt {
  const succeeded = outcome.status >= 200 && outcome.status < 300;
  return { outcome, succeeded, error: outcome.error ?? null, recordedColumns: sql`last_status_code = ${outcome.status}` };
}

/**
 * Webhook deliveries on the leased queue (leased-queue.ts): the POST is sent outside any
 * transaction; a 2xx answer is success, anything else (or no answer) is retried on the
 * schedule, and the HTTP status is recorded with every attempt.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { deliver, onSettled, ...settings } = options;
  return createLeasedQueueWorker<Delivery, DeliveryAttempt>({
    ...settings,
    label: 'delivery',
    async attempt(delivery) {
      try {
        return recordedAttempt(await deliver(delivery));
      } catch (error) {
        return recordedAttempt({ status: 0, error: (error as Error).message });
      }
    },
    lostAttempt: (error) => recordedAttempt({ status: 0, error }),
    onSettled: onSettled && ((tx, delivery, { outcome, succeeded }, final) => onSettled(tx, { delivery, outcome, succeeded, final })),
  });
}
