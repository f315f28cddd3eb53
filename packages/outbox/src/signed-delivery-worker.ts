import { createGuardedDispatcher, MAX_SENDS_PER_HOST, postOnce, type TargetPolicy } from '@svc/outbound-http';
import type { SQL } from 'drizzle-orm';
import { createDeliveryWorker, type AttemptOutcome, type DeliveryWorker, type SettledDelivery } from './delivery-queue.js';
import type { DeliveryTable } from './delivery-table.js';
import type { AnyDatabase, QueueWorkerSettings, RecordedOutcome, Transaction } from './leased-queue.js';
import { queueDepth, type QueueDepth } from './queue-depth.js';
import { wakeOnNotify, type Listen } from './wake-on-notify.js';

/** A subscription's target as stored: where to POST, and its signing secret, sealed. */
export interface SealedTarget {
  id: string;
  url: string;
  sealed: string;
  /** The secret a rotation replaced, sealed like the current one, and when it stops signing. */
  previousSealed?: string | null;
  previousExpiresAt?: Date | null;
}

/** What one attempt is signed from: the fields of @svc/webhook-signing's `SignedHeadersInput`. */
export interface DeliverySigningInput {
  secret: string;
  /** Present while a rotation's grace window lasts: receivers still holding it verify too. */
  previousSecret?: string;
  rawBody: string;
  delivery: { id: string; attempt: number };
  topic: string;
}

export interface SignedDeliveryWorkerOptions extends Pick<QueueWorkerSettings, 'retryScheduleMs' | 'clock' | 'leaseMs' | 'batchSize' | 'concurrency' | 'pollIntervalMs' | 'logger'> {
  db: AnyDatabase;
  table: DeliveryTable;
  /** Names the queue in metrics (`webhook_deliveries`). */
  queueName: string;
  /** Names this worker in logs. */
  workerId: string;
  userAgent: string;
  policy: TargetPolicy;
  timeoutMs: number;
  /** Finished deliveries older than this many days are deleted. */
  retentionDays?: number;
  /** Reads the targets of one claim's subscriptions, as they are now (a rotation or a new URL applies to the next attempt). */
  loadTargets: (subscriptionIds: string[]) => Promise<SealedTarget[]>;
  /** Opens a sealed secret; the target's id is the associated data it was sealed with. */
  openSecret: (sealed: string, targetId: string) => string;
  /** The service's signature headers (its spec's and Standard Webhooks') over the stored body, with a fresh timestamp. */
  sign: (input: DeliverySigningInput) => Record<string, string>;
  /** The last error of a delivery whose target was deleted. */
  missingTarget: string;
  /** Turns the receiver's answer into what is recorded (e.g. 410 Gone → permanent). */
  interpret?: (outcome: AttemptOutcome) => AttemptOutcome;
  /** Only deliveries meeting this condition are claimed (their endpoint is active); the others wait. */
  claimableWhere?: SQL;
  onSettled?: (tx: Transaction, settled: SettledDelivery) => Promise<void>;
  onSettledFor?: (outcome: AttemptOutcome) => boolean;
  /** The database's LISTEN and the channel enqueues NOTIFY: deliveries committed by any process wake this worker at once. */
  listen?: Listen;
  channel: string;
  /** Where the queue's depth (read at scrape time) and its attempts by outcome are reported. */
  metrics?: { watchQueue(queue: string, read: () => Promise<QueueDepth[]>): void; queueAttemptRecorder(queue: string): (outcome: RecordedOutcome) => void };
}

type OpenedTarget = { url: string; secret: string; previousSecret?: string } | { error: string };

/**
 * The one skeleton of both services' signed webhooks on the delivery queue: each claim reads
 * its targets in one query and opens their secrets; each attempt signs the stored body and
 * POSTs it once through the SSRF-guarded dispatcher (no redirects, time limit); what the
 * service keeps about its subscriptions is updated by onSettled in the transaction that
 * records the attempt.
 */
export function createSignedDeliveryWorker(options: SignedDeliveryWorkerOptions): DeliveryWorker & { close(): Promise<void> } {
  const { db, table, policy, timeoutMs } = options;
  // Created by the first send: a process that delivers nothing never loads the HTTP client.
  let dispatcher: ReturnType<typeof createGuardedDispatcher> | undefined;
  const guardedDispatcher = () => (dispatcher ??= createGuardedDispatcher(policy, { connectTimeoutMs: timeoutMs }));
  // Depth is the table's, whichever process works it: reported even when the worker runs elsewhere.
  options.metrics?.watchQueue(options.queueName, () => queueDepth(db, table, { openOnly: true }));

  const clock = options.clock ?? (() => new Date());

  function open(target: SealedTarget, now: Date): OpenedTarget {
    let secret: string;
    try {
      secret = options.openSecret(target.sealed, target.id);
    } catch {
      // One target's unreadable secret must not stop the deliveries of every other target in the claim.
      return { error: 'the signing secret cannot be opened with the current SECRETS_KEY; rotate the secret' };
    }
    const previousSecret = openPrevious(target, now);
    return { url: target.url, secret, ...(previousSecret === undefined ? {} : { previousSecret }) };
  }

  function openPrevious(target: SealedTarget, now: Date): string | undefined {
    if (!target.previousSealed || !target.previousExpiresAt || target.previousExpiresAt <= now) return undefined;
    try {
      return options.openSecret(target.previousSealed, target.id);
    } catch {
      // The current secret still signs; only receivers not yet switched to it would notice.
      return undefined;
    }
  }

  const queue = createDeliveryWorker<Map<string, OpenedTarget>>({
    db,
    table,
    retryScheduleMs: options.retryScheduleMs,
    jitter: 0.1,
    workerId: options.workerId,
    maxInFlightPerSubscription: MAX_SENDS_PER_HOST,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.retentionDays ? { retention: { days: options.retentionDays } } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { onAttemptRecorded: options.metrics.queueAttemptRecorder(options.queueName) } : {}),
    ...(options.claimableWhere ? { claimableWhere: options.claimableWhere } : {}),
    ...(options.onSettled ? { onSettled: options.onSettled } : {}),
    ...(options.onSettledFor ? { onSettledFor: options.onSettledFor } : {}),
    async prepare(deliveries) {
      const targets = await options.loadTargets([...new Set(deliveries.map((delivery) => delivery.subscriptionId))]);
      const now = clock();
      return new Map(targets.map((target) => [target.id, open(target, now)]));
    },
    async deliver(delivery, targets) {
      const target = targets.get(delivery.subscriptionId);
      if (!target) return { status: 0, error: options.missingTarget, permanent: true };
      if ('error' in target) return { status: 0, error: target.error };
      const headers = options.sign({
        secret: target.secret,
        ...(target.previousSecret === undefined ? {} : { previousSecret: target.previousSecret }),
        rawBody: delivery.payload,
        delivery: { id: delivery.id, attempt: delivery.attemptCount },
        topic: delivery.topic,
      });
      const outcome = await postOnce({ url: target.url, body: delivery.payload, headers, dispatcher: await guardedDispatcher(), policy, timeoutMs, userAgent: options.userAgent });
      return options.interpret ? options.interpret(outcome) : outcome;
    },
  });
  const worker = options.listen ? wakeOnNotify(queue, options.listen, options.channel, options.logger) : queue;
  return {
    ...worker,
    async close() {
      await worker.stop();
      if (dispatcher) await (await dispatcher).close();
    },
  };
}
