// Header names and fixed values of both schemes, exported so senders, receivers and tests
// never retype them. Spelled as the specs write them; look-up on the receiving side is
// case-insensitive, so the spelling only matters for what we send.

export const CONTENT_TYPE_HEADER = 'Content-Type';
export const JSON_CONTENT_TYPE = 'application/json';

/** Unix seconds as a decimal string; the exact value that is signed. Used by both schemes. */
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
/** Event type; not covered by the signature. Used by both schemes. */
export const EVENT_HEADER = 'X-Service-Event';

/** Identity service: `sha256=<64 hex>`. */
export const IDENTITY_SIGNATURE_HEADER = 'X-Service-Signature';
export const IDENTITY_SIGNATURE_PREFIX = 'sha256=';

/** FX service: bare 64 hex characters. */
export const FX_SIGNATURE_HEADER = 'X-Service-Signature-256';
export const FX_SIGNATURE_VERSION_HEADER = 'X-Service-Signature-Version';
export const FX_SIGNATURE_VERSION = '2';
/** The only event the FX service sends. */
export const FX_EVENT_TYPE = 'rate_alert';

/** Both specs: reject a timestamp more than this many seconds away from now, in either direction. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * The delivery's id, the same at every attempt of it (Standard Webhooks' `webhook-id`
 * convention): receivers dedupe on it without parsing the body. Not signed. Both services.
 */
export const DELIVERY_ID_HEADER = 'X-Service-Delivery-Id';
/** 1 for the first attempt of a delivery, 2 for the next, …. Not signed. Both services. */
export const DELIVERY_ATTEMPT_HEADER = 'X-Service-Delivery-Attempt';

/**
 * Standard Webhooks (https://www.standardwebhooks.com), sent beside the spec's headers on every delivery:
 * the delivery id (stable across retries), Unix seconds, and `v1,<base64>` signatures separated by spaces.
 */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';
