import { createGuardedDispatcher, MAX_SENDS_PER_HOST, postOnce, type TargetPolicy } from '@svc/outbound-http';
import { createDeliveryWorker, queueDepth, wakeOnNotify, type DeliveryWorker, type Listen } from '@svc/outbox';
import type { SecretBox, ServiceMetrics } from '@svc/service-kit';
import { buildIdentityWebhookHeaders } from '@svc/webhook-signing';
import { eq, inArray, sql } from 'drizzle-orm';
import type { IdentityConfig } from '../config.js';
import { webhookDeliveries, webhookEndpoints, type IdentityExecutor } from '../db/schema.js';
import { writeAudit } from '../domain/common/audit.js';
import { WEBHOOK_DELIVERY_CHANNEL } from '../domain/webhooks/webhook-events.js';

const USER_AGENT = 'partner-services-identity-webhooks/1';

export interface WebhookDeliveryWorkerOptions {
  db: IdentityExecutor;
  box: SecretBox;
  policy: TargetPolicy;
  config: Pick<IdentityConfig, 'WEBHOOK_RETRY_SCHEDULE_MS' | 'WEBHOOK_TIMEOUT_MS' | 'DELIVERY_LEASE_MS' | 'DELIVERY_RETENTION_DAYS' | 'WEBHOOK_CONCURRENCY'>;
  clock: () => Date;
  /** The database's LISTEN: deliveries committed by any process wake this worker at once. */
  listen?: Listen;
  pollIntervalMs?: number;
  logger?: { warn(object: object, message: string): void; error(object: object, message: string): void };
  /** Where the queue's depth (read at scrape time) and its attempts by outcome are reported. */
  metrics?: Pick<ServiceMetrics, 'watchQueue' | 'queueAttemptRecorder'>;
}

type EndpointTarget = { url: string; secret: string } | { error: string };

function openTarget(box: SecretBox, row: { id: string; url: string; sealed: string }): EndpointTarget {
  try {
    return { url: row.url, secret: box.decrypt(row.sealed, row.id) };
  } catch {
    // One endpoint's unreadable secret must not stop the deliveries of every other endpoint in the claim.
    return { error: 'the signing secret cannot be opened with the current SECRETS_KEY; rotate the secret' };
  }
}

/**
 * Case-event deliveries on the shared @svc/outbox queue. Each claim reads its endpoints (URL
 * and secret as they are now, so a rotation or a new URL applies to the next attempt) in one
 * query; each attempt signs the stored body with a fresh timestamp and POSTs it once through
 * the SSRF-guarded dispatcher. Deliveries of paused endpoints are not claimed: they wait.
 * 410 Gone deactivates the endpoint.
 */
export function createWebhookDeliveryWorker(options: WebhookDeliveryWorkerOptions): DeliveryWorker & { close(): Promise<void> } {
  const { config, db } = options;
  const dispatcher = createGuardedDispatcher(options.policy, { connectTimeoutMs: config.WEBHOOK_TIMEOUT_MS });
  // Depth is the table's, whichever process works it: reported even when the worker runs elsewhere.
  options.metrics?.watchQueue('webhook_deliveries', () => queueDepth(db, webhookDeliveries, { openOnly: true }));
  const queue = createDeliveryWorker<Map<string, EndpointTarget>>({
    db,
    table: webhookDeliveries,
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    jitter: 0.1,
    leaseMs: config.DELIVERY_LEASE_MS,
    retention: { days: config.DELIVERY_RETENTION_DAYS },
    concurrency: config.WEBHOOK_CONCURRENCY,
    batchSize: Math.min(100, config.WEBHOOK_CONCURRENCY),
    clock: options.clock,
    workerId: 'identity-webhooks',
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { onAttemptRecorded: options.metrics.queueAttemptRecorder('webhook_deliveries') } : {}),
    maxInFlightPerSubscription: MAX_SENDS_PER_HOST,
    claimableWhere: sql`exists (select 1 from ${webhookEndpoints} e where e.id = subscription_id and e.is_active)`,
    async prepare(deliveries) {
      const ids = [...new Set(deliveries.map((delivery) => delivery.subscriptionId))];
      const rows = await db
        .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, sealed: webhookEndpoints.signingSecretSealed })
        .from(webhookEndpoints)
        .where(inArray(webhookEndpoints.id, ids));
      return new Map(rows.map((row) => [row.id, openTarget(options.box, row)]));
    },
    async deliver(delivery, endpoints) {
      const endpoint = endpoints.get(delivery.subscriptionId);
      if (!endpoint) return { status: 0, error: 'webhook endpoint deleted', permanent: true };
      if ('error' in endpoint) return { status: 0, error: endpoint.error };
      const headers = buildIdentityWebhookHeaders({
        secret: endpoint.secret,
        rawBody: delivery.payload,
        eventType: delivery.topic,
        delivery: { id: delivery.id, attempt: delivery.attemptCount },
      });
      const result = await postOnce({ url: endpoint.url, body: delivery.payload, headers, dispatcher, policy: options.policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS, userAgent: USER_AGENT });
      if (result.status === 410) return { ...result, error: '410 Gone: the receiver asked for no more deliveries; the endpoint was deactivated', permanent: true };
      return result;
    },
    onSettledFor: (outcome) => outcome.status === 410,
    async onSettled(tx, { delivery }) {
      const executor = tx as unknown as IdentityExecutor;
      const [endpoint] = await executor
        .update(webhookEndpoints)
        .set({ isActive: false, updatedAt: options.clock() })
        .where(eq(webhookEndpoints.id, delivery.subscriptionId))
        .returning({ tenantId: webhookEndpoints.tenantId, isActive: webhookEndpoints.isActive });
      if (endpoint) {
        await writeAudit(executor, { tenantId: endpoint.tenantId, actor: 'system:webhooks', action: 'webhook.deactivated', target: `webhook:${delivery.subscriptionId}`, after: { reason: '410 Gone' } }, options.clock());
      }
    },
  });
  const worker = options.listen ? wakeOnNotify(queue, options.listen, WEBHOOK_DELIVERY_CHANNEL, options.logger) : queue;
  return {
    ...worker,
    async close() {
      await worker.stop();
      await dispatcher.close();
    },
  };
}
