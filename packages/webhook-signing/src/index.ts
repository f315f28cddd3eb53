export { SIGNING_SECRET_PREFIX, generateSigningSecret, standardWebhooksKey, toStandardWebhooksSecret } from './signing-secret.js';
export { buildStandardWebhookHeaders, computeStandardSignature } from './standard-webhooks.js';
export { computeSignature } from './compute-signature.js';
export { buildFxWebhookHeaders, buildIdentityWebhookHeaders } from './build-headers.js';
export type { SignedHeadersInput } from './build-headers.js';
export type { HeaderSource } from './header-source.js';
export {
  WebhookVerificationError,
  assertValidFxWebhook,
  assertValidIdentityWebhook,
  verifyFxWebhook,
  verifyIdentityWebhook,
} from './verify-webhook.js';
export type { VerificationFailureReason, VerificationResult, VerifyOptions } from './verify-webhook.js';
export {
  CONTENT_TYPE_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ATTEMPT_HEADER,
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  FX_EVENT_TYPE,
  FX_SIGNATURE_HEADER,
  FX_SIGNATURE_VERSION,
  FX_SIGNATURE_VERSION_HEADER,
  IDENTITY_SIGNATURE_HEADER,
  IDENTITY_SIGNATURE_PREFIX,
  JSON_CONTENT_TYPE,
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  TIMESTAMP_HEADER,
} from './header-names.js';
export { MAX_PREVIOUS_SECRET_VALID_SECONDS, previousSecretAfterRotation } from './rotation.js';
