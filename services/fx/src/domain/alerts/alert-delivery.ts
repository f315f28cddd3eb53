import { createGuardedDispatcher, postOnce, type TargetPolicy } from '@svc/outbound-http';
import { createDeliveryWorker, type DeliveryWorker } from '@svc/outbox';
import type { SecretBox } from '@svc/service-kit';
import { buildFxWebhookHeaders } from '@svc/webhook-signing';
import { eq, sql } from 'drizzle-orm';
import { alertDeliveries, rateAlerts } from '../../db/schema.js';
import type { FxExecutor } from '../rates/ingest-rates.js';

/** Consecutive failed firings after which a webhook is disabled and no longer evaluated. */
export const MAX_CONSECUTIVE_FAILURES = 10;

export interface AlertDeliveryOptions {
  db: FxExecutor;
  box: SecretBox;
  policy: TargetPolicy;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  clock?: () => Date;
  pollIntervalMs?: number;
  /** Deliveries claimed and sent concurrently per batch (default 20). */
  batchSize?: number;
  logger?: { warn(object: object, message: string): void; error(object: object, message: string): void };
}

/**
 * The rate-alert worker on the shared @svc/outbox queue: each attempt re-reads the webhook
 * (URL and secret as they are now), signs the stored payload with a fresh timestamp (fx
 * scheme) and POSTs it once through the SSRF-guarded dispatcher (no redirects, time limit).
 * Bookkeeping commits with the attempt's outcome: the last status always; a success resets
 * consecutiveFailures; a firing whose every attempt failed adds one, and the tenth disables
 * the webhook.
 */
export function createAlertDeliveryWorker(options: AlertDeliveryOptions): DeliveryWorker & { close(): Promise<void> } {
  const dispatcher = createGuardedDispatcher(options.policy, { connectTimeoutMs: options.timeoutMs });
  const worker = createDeliveryWorker({
    db: options.db,
    table: alertDeliveries,
    retryScheduleMs: options.retryScheduleMs,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    workerId: 'fx-alerts',
    async deliver(delivery) {
      const [alert] = await options.db
        .select({ id: rateAlerts.id, webhookUrl: rateAlerts.webhookUrl, sealed: rateAlerts.signingSecretSealed })
        .from(rateAlerts)
        .where(eq(rateAlerts.id, delivery.subscriptionId));
      if (!alert) return { status: 0, error: 'webhook deleted' };
      const secret = options.box.decrypt(alert.sealed, alert.id);
      const headers = buildFxWebhookHeaders({ secret, rawBody: delivery.payload });
      const result = await postOnce({ url: alert.webhookUrl, body: delivery.payload, headers, dispatcher, policy: options.policy, timeoutMs: options.timeoutMs });
      return result.error === undefined ? { status: result.status } : { status: result.status, error: result.error };
    },
    async onSettled(tx, { delivery, outcome, succeeded, final }) {
      if (succeeded) {
        await tx.update(rateAlerts).set({ lastDeliveryStatusCode: outcome.status, consecutiveFailures: 0 }).where(eq(rateAlerts.id, delivery.subscriptionId));
      } else if (final) {
        await tx
          .update(rateAlerts)
          .set({
            lastDeliveryStatusCode: outcome.status,
            consecutiveFailures: sql`${rateAlerts.consecutiveFailures} + 1`,
            isActive: sql`${rateAlerts.isActive} and ${rateAlerts.consecutiveFailures} + 1 < ${MAX_CONSECUTIVE_FAILURES}`,
          })
          .where(eq(rateAlerts.id, delivery.subscriptionId));
      } else {
        await tx.update(rateAlerts).set({ lastDeliveryStatusCode: outcome.status }).where(eq(rateAlerts.id, delivery.subscriptionId));
      }
    },
  });
  return {
    ...worker,
    async close() {
      await worker.stop();
      await dispatcher.close();
    },
  };
}
