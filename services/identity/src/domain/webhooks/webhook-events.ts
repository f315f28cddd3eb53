/** The event types a partner can subscribe to (the spec's Events table), in its order. */
export const WEBHOOK_EVENT_TYPES = [
  'verification.session_issued',
  'verification.capture_started',
  'verification.evidence_uploaded',
  'verification.automated_checks_running',
  'verification.pending_manual_review',
  'verification.approved',
  'verification.rejected',
  'verification.expired',
  'verification.cancelled',
  'verification.failed',
  // Not a state: the case's evidence and personal data were destroyed (on request or by retention).
  'verification.redacted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The signed ping of POST /webhooks/{id}/test; sent whatever the endpoint subscribes to, never subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** The spec's 5 attempts; WEBHOOK_RETRY_SCHEDULE_MS gives the delay before each. */
export const WEBHOOK_ATTEMPTS = 5;

/** Endpoints per tenant, active or not (the spec leaves it open). */
export const MAX_ENDPOINTS_PER_TENANT = 20;

/** NOTIFY channel on which a committed delivery wakes every delivery worker, in any process. */
export const WEBHOOK_DELIVERY_CHANNEL = 'identity_webhook_deliveries';

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
