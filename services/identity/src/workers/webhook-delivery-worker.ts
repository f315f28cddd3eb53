import type { TargetPolicy } from '@svc/outbound-http';
import { createSignedDeliveryWorker, type DeliveryWorker, type Listen } from '@svc/outbox';
import type { SecretBox, ServiceMetrics } from '@svc/service-kit';
import { buildIdentityWebhookHeaders } from '@svc/webhook-signing';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { IdentityConfig } from '../config.js';
import { webhookDeliveries, webhookEndpoints, type IdentityExecutor } from '../db/schema.js';
import { writeAudit } from '../domain/common/audit.js';
import { WEBHOOK_DELIVERY_CHANNEL } from '../domain/webhooks/webhook-events.js';
import { mailEndpointDisabled } from '../domain/webhooks/endpoint-notices.js';
import type { IdentityMailer } from '../domain/mail/identity-mailer.js';

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
  /** Tells the tenant's PartnerAdmins when an endpoint is disabled (absent: nobody is told). */
  mailer?: IdentityMailer;
  /** Where the queue's depth (read at scrape time) and its attempts by outcome are reported. */
  metrics?: Pick<ServiceMetrics, 'watchQueue' | 'queueAttemptRecorder'>;
}

/**
 * Case-event deliveries on the shared signed-delivery worker. Deliveries of paused endpoints
 * are not claimed: they wait. 410 Gone deactivates the endpoint, audited.
 */
export function createWebhookDeliveryWorker(options: WebhookDeliveryWorkerOptions): DeliveryWorker & { close(): Promise<void> } {
  const { config, db } = options;
  return createSignedDeliveryWorker({
    db,
    table: webhookDeliveries,
    queueName: 'webhook_deliveries',
    workerId: 'identity-webhooks',
    userAgent: USER_AGENT,
    policy: options.policy,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    leaseMs: config.DELIVERY_LEASE_MS,
    retentionDays: config.DELIVERY_RETENTION_DAYS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    batchSize: Math.min(100, config.WEBHOOK_CONCURRENCY),
    clock: options.clock,
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.listen ? { listen: options.listen } : {}),
    channel: WEBHOOK_DELIVERY_CHANNEL,
    claimableWhere: sql`exists (select 1 from ${webhookEndpoints} e where e.id = subscription_id and e.is_active)`,
    loadTargets: (ids) =>
      db
        .select({
          id: webhookEndpoints.id,
          url: webhookEndpoints.url,
          sealed: webhookEndpoints.signingSecretSealed,
          previousSealed: webhookEndpoints.previousSigningSecretSealed,
          previousExpiresAt: webhookEndpoints.previousSecretExpiresAt,
        })
        .from(webhookEndpoints)
        .where(inArray(webhookEndpoints.id, ids)),
    openSecret: (sealed, id) => options.box.decrypt(sealed, id),
    sign: (input) => buildIdentityWebhookHeaders({ ...input, eventType: input.topic }),
    missingTarget: 'webhook endpoint deleted',
    interpret: (outcome) =>
      outcome.status === 410 ? { ...outcome, error: '410 Gone: the receiver asked for no more deliveries; the endpoint was deactivated', permanent: true } : outcome,
    onSettledFor: (outcome) => outcome.status === 410,
    async onSettled(tx, { delivery, outcome }) {
      const executor = tx as unknown as IdentityExecutor;
      const now = options.clock();
      // Only the update that turns the endpoint off tells anyone: a second 410 for an endpoint already off mails nothing.
      const [endpoint] = await executor
        .update(webhookEndpoints)
        .set({ isActive: false, updatedAt: now })
        .where(and(eq(webhookEndpoints.id, delivery.subscriptionId), eq(webhookEndpoints.isActive, true)))
        .returning({ tenantId: webhookEndpoints.tenantId, url: webhookEndpoints.url });
      if (endpoint) {
        await writeAudit(executor, { tenantId: endpoint.tenantId, actor: 'system:webhooks', action: 'webhook.deactivated', target: `webhook:${delivery.subscriptionId}`, after: { reason: '410 Gone' } }, now);
        if (options.mailer) await mailEndpointDisabled(executor, options.mailer, { ...endpoint, lastError: outcome.error ?? `HTTP ${outcome.status}` }, now);
      }
    },
  });
}
