import type { TargetPolicy } from '@svc/outbound-http';
import { createSignedDeliveryWorker, type DeliveryWorker, type Listen } from '@svc/outbox';
import type { Database } from '@svc/db';
import { createSecretBox, type SecretBox, type ServiceMetrics } from '@svc/service-kit';
import { buildFxWebhookHeaders } from '@svc/webhook-signing';
import { eq, inArray, sql } from 'drizzle-orm';
import type { FxConfig } from '../config.js';
import { alertDeliveries, apiClients, rateAlerts, type FxDatabaseSchema } from '../db/schema.js';
import type { FxExecutor } from '../db/executor.js';
import { recordAttempt } from '../domain/alerts/delivery-attempts.js';
import { ALERT_DELIVERY_CHANNEL } from '../domain/alerts/evaluate-alerts.js';
import type { FxMailer } from '../domain/mail/fx-mailer.js';

/** Consecutive failed firings after which a webhook is disabled and no longer evaluated. */
export const MAX_CONSECUTIVE_FAILURES = 10;
/** Names fx's rate-alert sends (firings and test sends) to receivers. */
export const ALERT_USER_AGENT = 'partner-services-fx-alerts/1';

export interface AlertDeliveryOptions {
  db: FxExecutor;
  box: SecretBox;
  policy: TargetPolicy;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  /** DELIVERY_LEASE_MS (renewed while a send runs). */
  leaseMs?: number;
  /** DELIVERY_RETENTION_DAYS: succeeded and given-up deliveries older than this are deleted. */
  retentionDays?: number;
  clock?: () => Date;
  /** The database's LISTEN: firings committed by any process wake this worker at once. */
  listen?: Listen;
  pollIntervalMs?: number;
  /** Deliveries claimed and sent concurrently per batch (default 20). */
  batchSize?: number;
  logger?: { warn(object: object, message: string): void; error(object: object, message: string): void };
  /** Where the queue's depth (read at scrape time) and its attempts by outcome are reported. */
  metrics?: Pick<ServiceMetrics, 'watchQueue' | 'queueAttemptRecorder'>;
  /** Mails the client's contact address, in the disabling transaction, when a webhook is disabled by failures. */
  mailer?: FxMailer;
}

/** What the API process and the standalone worker both hand the alert worker. */
export interface AlertWorkerWiring {
  database: Database<FxDatabaseSchema>;
  secretsKey: Buffer;
  clock?: () => Date;
  logger: NonNullable<AlertDeliveryOptions['logger']>;
  metrics: NonNullable<AlertDeliveryOptions['metrics']>;
  mailer?: FxMailer;
}

/** The alert worker as configured, built the same way wherever it runs (in the API process or alone). */
export function alertDeliveryWorkerFor(config: FxConfig, wiring: AlertWorkerWiring): ReturnType<typeof createAlertDeliveryWorker> {
  return createAlertDeliveryWorker({
    db: wiring.database.db,
    box: createSecretBox(wiring.secretsKey),
    policy: { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
    retryScheduleMs: config.ALERT_RETRY_SCHEDULE_MS,
    timeoutMs: config.ALERT_DELIVERY_TIMEOUT_MS,
    leaseMs: config.DELIVERY_LEASE_MS,
    retentionDays: config.DELIVERY_RETENTION_DAYS,
    listen: wiring.database.listen,
    logger: wiring.logger,
    metrics: wiring.metrics,
    ...(wiring.mailer ? { mailer: wiring.mailer } : {}),
    ...(wiring.clock ? { clock: wiring.clock } : {}),
  });
}

/**
 * The rate-alert worker on the shared signed-delivery worker (@svc/outbox): each claim reads its webhooks (URL
 * and secret as they are now) in one query, each attempt signs the stored payload with a
 * fresh timestamp (fx scheme, with the delivery's stable id and attempt number) and POSTs it
 * once through the SSRF-guarded dispatcher (no redirects, time limit).
 * Bookkeeping commits with the attempt's outcome: the last status always; a success resets
 * consecutiveFailures; a firing whose every attempt failed adds one, and the tenth disables
 * the webhook, and (with a mailer) queues the "alert disabled" mail to the client's contact address in
 * that same transaction, so the mail goes out exactly when the disable commits.
 */
export function createAlertDeliveryWorker(options: AlertDeliveryOptions): DeliveryWorker & { close(): Promise<void> } {
  return createSignedDeliveryWorker({
    db: options.db,
    table: alertDeliveries,
    queueName: 'alert_deliveries',
    workerId: 'fx-alerts',
    userAgent: ALERT_USER_AGENT,
    policy: options.policy,
    timeoutMs: options.timeoutMs,
    retryScheduleMs: options.retryScheduleMs,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.listen ? { listen: options.listen } : {}),
    channel: ALERT_DELIVERY_CHANNEL,
    loadTargets: (ids) =>
      options.db
        .select({
          id: rateAlerts.id,
          url: rateAlerts.webhookUrl,
          sealed: rateAlerts.signingSecretSealed,
          previousSealed: rateAlerts.previousSigningSecretSealed,
          previousExpiresAt: rateAlerts.previousSecretExpiresUtc,
        })
        .from(rateAlerts)
        .where(inArray(rateAlerts.id, ids)),
    openSecret: (sealed, id) => options.box.decrypt(sealed, id),
    sign: buildFxWebhookHeaders,
    missingTarget: 'webhook deleted',
    async onSettled(tx, { delivery, outcome, succeeded, final }) {
      const alertId = delivery.subscriptionId;
      const now = options.clock?.() ?? new Date();
      let updated: { id: string } | undefined;
      if (succeeded) {
        [updated] = await tx.update(rateAlerts).set({ lastDeliveryStatusCode: outcome.status, consecutiveFailures: 0 }).where(eq(rateAlerts.id, alertId)).returning({ id: rateAlerts.id });
      } else if (final) {
        const [after] = await tx
          .update(rateAlerts)
          .set({
            lastDeliveryStatusCode: outcome.status,
            consecutiveFailures: sql`${rateAlerts.consecutiveFailures} + 1`,
            isActive: sql`${rateAlerts.isActive} and ${rateAlerts.consecutiveFailures} + 1 < ${MAX_CONSECUTIVE_FAILURES}`,
          })
          .where(eq(rateAlerts.id, alertId))
          .returning({ id: rateAlerts.id, clientId: rateAlerts.clientId, webhookUrl: rateAlerts.webhookUrl, label: rateAlerts.label, failures: rateAlerts.consecutiveFailures });
        updated = after;
        // Exactly the firing that crossed the limit mails; later failures of in-flight firings do not mail again.
        if (options.mailer && after?.failures === MAX_CONSECUTIVE_FAILURES) await mailDisabled(tx, options.mailer, after, outcome.status === 0 ? null : outcome.status, now);
      } else {
        [updated] = await tx.update(rateAlerts).set({ lastDeliveryStatusCode: outcome.status }).where(eq(rateAlerts.id, alertId)).returning({ id: rateAlerts.id });
      }
      // Every attempt goes to the webhook's delivery log, unless the webhook is gone (deleted while in flight).
      if (updated) await recordAttempt(tx as unknown as FxExecutor, { alertId, kind: 'alert', at: now, statusCode: outcome.status, latencyMs: outcome.durationMs ?? null, error: outcome.error ?? (succeeded ? null : `HTTP ${outcome.status}`) });
    },
  });
}

async function mailDisabled(
  tx: Parameters<FxMailer['enqueue']>[0],
  mailer: FxMailer,
  alert: { id: string; clientId: string; webhookUrl: string; label: string | null; failures: number },
  lastStatus: number | null,
  now: Date,
): Promise<void> {
  const [client] = await (tx as FxExecutor)
    .select({ name: apiClients.name, email: apiClients.email, language: apiClients.language })
    .from(apiClients)
    .where(eq(apiClients.id, alert.clientId));
  if (!client?.email) return;
  await mailer.enqueue(
    tx,
    { to: client.email, language: client.language, template: 'alert-disabled', data: { clientName: client.name, webhookUrl: alert.webhookUrl, label: alert.label, lastStatus, failures: alert.failures }, subjectId: alert.id },
    now,
  );
}
