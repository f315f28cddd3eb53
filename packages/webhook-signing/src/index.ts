export { SIGNING_SECRET_PREFIX, generateSigningSecret } from './signing-secret.js';
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
  TIMESTAMP_HEADER,
} from './header-names.js';
