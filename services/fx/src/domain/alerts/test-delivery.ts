import { randomUUID } from 'node:crypto';
import { postOnce, type TargetPolicy } from '@svc/outbound-http';
import type { SecretBox } from '@svc/service-kit';
import { buildFxWebhookHeaders } from '@svc/webhook-signing';
import type { FxExecutor } from '../../db/executor.js';
import type { ApiClient } from '../clients/api-clients.js';
import { recordAttempt } from './delivery-attempts.js';
import { getRateAlert } from './rate-alerts.js';

type Dispatcher = Parameters<typeof postOnce>[0]['dispatcher'];
const ALERT_TYPES = ['ABOVE', 'BELOW', 'CHANGE_INCREASE', 'CHANGE_DECREASE'] as const;
/** The event of a test send: a receiver that switches on `event` does not mistake it for a real crossing. */
export const TEST_EVENT = 'rate_alert.test';

export interface TestDeliveryContext {
  box: SecretBox;
  policy: TargetPolicy;
  timeoutMs: number;
  userAgent: string;
  dispatcher: () => Promise<Dispatcher>;
}

/**
 * One signed POST to the webhook now, signed exactly as a firing is (the current secret, and the
 * replaced one while its grace lasts), through the same SSRF guard; sent once, never retried. It
 * goes to the delivery log but leaves the webhook's health alone: a test is not a firing, so it
 * neither disables nor revives a webhook. Works on a disabled webhook, to check the receiver before re-enabling.
 */
export async function sendTestDelivery(db: FxExecutor, context: TestDeliveryContext, client: ApiClient, id: string, now: Date) {
  const alert = await getRateAlert(db, client, id);
  const secret = context.box.decrypt(alert.signingSecretSealed, alert.id);
  const previousSecret = alert.previousSigningSecretSealed && alert.previousSecretExpiresUtc && alert.previousSecretExpiresUtc > now ? context.box.decrypt(alert.previousSigningSecretSealed, alert.id) : undefined;
  const body = JSON.stringify({
    event: TEST_EVENT,
    test: true,
    currency: alert.currency,
    source: alert.source,
    alertType: ALERT_TYPES[alert.alertType],
    threshold: alert.thresholdValue,
    label: alert.label ?? '',
    webhookId: alert.id,
    timestampUtc: now.toISOString(),
  });
  const headers = buildFxWebhookHeaders({ secret, ...(previousSecret === undefined ? {} : { previousSecret }), rawBody: body, delivery: { id: randomUUID(), attempt: 1 } });
  const outcome = await postOnce({ url: alert.webhookUrl, body, headers, dispatcher: await context.dispatcher(), policy: context.policy, timeoutMs: context.timeoutMs, userAgent: context.userAgent });
  const succeeded = outcome.status >= 200 && outcome.status < 300;
  const error = outcome.error ?? (succeeded ? null : `HTTP ${outcome.status}`);
  await recordAttempt(db, { alertId: alert.id, kind: 'test', at: now, statusCode: outcome.status, latencyMs: outcome.durationMs, error });
  return { succeeded, statusCode: outcome.status, latencyMs: outcome.durationMs, error };
}
