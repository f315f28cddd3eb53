/**
 * Webhook verification, the same code the service signs with: a receiver checks the raw body,
 * the signature and the timestamp's age in one call before it parses anything.
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  IDENTITY_SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  WebhookVerificationError,
  assertValidIdentityWebhook,
  verifyIdentityWebhook,
} from '@svc/webhook-signing';
export type { HeaderSource, VerificationFailureReason, VerificationResult, VerifyOptions } from '@svc/webhook-signing';
