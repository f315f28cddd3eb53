import { sql, type SQL } from 'drizzle-orm';
import { currentTraceparent } from '@svc/telemetry';
import type { Delivery, DeliveryTable } from './delivery-table.js';
import { createLeasedQueueWorker, type AnyDatabase, type AttemptResult, type QueueWorker, type QueueWorkerSettings, type Transaction } from './leased-queue.js';

export interface EnqueueDelivery {
  topic: string;
  subscriptionId: string;
  subjectId?: string | null;
  payload: string;
  maxAttempts: number;
}

/**
 * Writes deliveries in the caller's transaction: the state change that caused the event
 * and the event itself commit together or not at all (outbox). With `notifyChannel`, a
 * NOTIFY sent on commit wakes every worker listening on it (in any process) at once.
 */
export async function enqueueDeliveries(
  tx: AnyDatabase | Transaction,
  table: DeliveryTable,
  deliveries: EnqueueDelivery[],
  now: Date,
  options: { notifyChannel?: string } = {},
): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const traceparent = currentTraceparent();
  const rows = await (tx as AnyDatabase)
    .insert(table)
    .values(deliveries.map((delivery) => ({ ...delivery, status: 'pending' as const, nextAttemptAt: now, createdAt: now, traceparent })))
    .returning({ id: table.id });
  if (options.notifyChannel) await notifyWorkers(tx, options.notifyChannel);
  return rows.map((row) => row.id);
}

/** NOTIFY in the caller's transaction: PostgreSQL delivers it to listeners when (and only if) it commits. */
export async function notifyWorkers(tx: AnyDatabase | Transaction, channel: string): Promise<void> {
  await (tx as AnyDatabase).execute(sql`select pg_notify(${channel}, '')`);
}

export interface AttemptOutcome {
  /** HTTP status, 0 when no response arrived. */
  status: number;
  error?: string;
  /** The receiver's Retry-After (429/503), in ms. */
  retryAfterMs?: number;
  /** Retrying cannot help (e.g. 410 Gone): the delivery fails now. */
  permanent?: boolean;
  /** How long the POST took (postOnce measures it); absent when nothing was sent. */
  durationMs?: number;
}

export interface SettledDelivery {
  delivery: Delivery;
  outcome: AttemptOutcome;
  succeeded: boolean;
  /** True when no further attempt will be made (success, or the last attempt failed). */
  final: boolean;
}

export interface DeliveryWorkerOptions<Context = undefined> extends QueueWorkerSettings {
  db: AnyDatabase;
  table: DeliveryTable;
  /** Loads what the deliveries of one claim share (their endpoints and secrets) in one query. */
  prepare?: (deliveries: Delivery[]) => Promise<Context>;
  /** Sends one attempt (resolve target and secret, sign, POST); must not throw for network trouble. */
  deliver: (delivery: Delivery, context: Context) => Promise<AttemptOutcome>;
  /** Only deliveries meeting this condition are claimed (e.g. their endpoint is active); the others wait, pending. */
  claimableWhere?: SQL;
  /**
   * Deliveries of one subscription (endpoint) in flight at once in this worker, about: one slow
   * receiver's backlog takes this many slots, the others keep theirs. Keep it at or under the
   * HTTP client's connections per host, so no send waits for a socket while its timeout runs.
   */
  maxInFlightPerSubscription?: number;
  /** Runs in the transaction that records the attempt, e.g. to update a webhook's failure count. */
  onSettled?: (tx: Transaction, settled: SettledDelivery) => Promise<void>;
  /** The outcomes onSettled is for (default all): batches with none are recorded without a transaction. */
  onSettledFor?: (outcome: AttemptOutcome) => boolean;
}

export type DeliveryWorker = QueueWorker;

interface DeliveryAttempt extends AttemptResult {
  outcome: AttemptOutcome;
}

function recordedAttempt(outcome: AttemptOutcome): DeliveryAttempt {
  const succeeded = outcome.status >= 200 && outcome.status < 300;
  return {
    outcome,
    succeeded,
    error: outcome.error ?? null,
    ...(outcome.permanent ? { permanent: true } : {}),
    ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
    recorded: { last_status_code: outcome.status },
  };
}

/**
 * Webhook deliveries on the leased queue (leased-queue.ts): the POST is sent outside any
 * transaction; a 2xx answer is success, anything else (or no answer) is retried on the
 * schedule (a longer Retry-After wins), and the HTTP status is recorded with every attempt.
 */
export function createDeliveryWorker<Context = undefined>(options: DeliveryWorkerOptions<Context>): DeliveryWorker {
  const { deliver, onSettled, onSettledFor, maxInFlightPerSubscription, ...settings } = options;
  return createLeasedQueueWorker<Delivery, DeliveryAttempt, Context>({
    ...settings,
    ...(maxInFlightPerSubscription
      ? { fairness: { column: options.table.subscriptionId, perGroup: maxInFlightPerSubscription, groupOf: (delivery: Delivery) => delivery.subscriptionId } }
      : {}),
    label: 'delivery',
    spanName: (delivery) => `webhook ${delivery.topic}`,
    recordedColumns: [{ name: 'last_status_code', sqlType: 'integer' }],
    async attempt(delivery, context) {
      try {
        return recordedAttempt(await deliver(delivery, context));
      } catch (error) {
        return recordedAttempt({ status: 0, error: (error as Error).message });
      }
    },
    lostAttempt: (error) => recordedAttempt({ status: 0, error }),
    onSettled: onSettled && ((tx, delivery, { outcome, succeeded }, final) => onSettled(tx, { delivery, outcome, succeeded, final })),
    ...(onSettledFor ? { onSettledFor: (_delivery: Delivery, { outcome }: DeliveryAttempt) => onSettledFor(outcome) } : {}),
  });
}
