import { computeSignature } from './compute-signature.js';
import { buildStandardWebhookHeaders } from './standard-webhooks.js';
import {
  CONTENT_TYPE_HEADER,
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

export interface SignedHeadersInput {
  secret: string;
  /** The exact bytes that will be sent as the request body. */
  rawBody: string | Uint8Array;
  /** Unix seconds; defaults to now. */
  timestamp?: number;
  /**
   * The delivery's stable id and this attempt's number (1-based), sent as X-Service-Delivery-Id / -Attempt
   * and, with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), signed.
   */
  delivery?: { id: string; attempt: number };
  /**
   * The secret a rotation replaced, while its grace window lasts: it adds a second `v1,` signature to
   * `webhook-signature`. The spec's own signature header always carries the current secret's only.
   */
  previousSecret?: string | undefined;
}

function deliveryHeaders(input: SignedHeadersInput, timestamp: number): Record<string, string> {
  if (!input.delivery) return {};
  const secrets = input.previousSecret === undefined ? [input.secret] : [input.secret, input.previousSecret];
  return {
    [DELIVERY_ID_HEADER]: input.delivery.id,
    [DELIVERY_ATTEMPT_HEADER]: String(input.delivery.attempt),
    ...buildStandardWebhookHeaders({ secrets, id: input.delivery.id, timestamp, rawBody: input.rawBody }),
  };
}

/** Headers for an identity-service delivery: `X-Service-Signature: sha256=<hex>`. */
export function buildIdentityWebhookHeaders(input: SignedHeadersInput & { eventType: string }): Record<string, string> {
  const timestamp = input.timestamp ?? currentUnixSeconds();
  const signature = computeSignature(input.secret, timestamp, input.rawBody);
  return {
    [CONTENT_TYPE_HEADER]: JSON_CONTENT_TYPE,
    [IDENTITY_SIGNATURE_HEADER]: IDENTITY_SIGNATURE_PREFIX + signature,
    [TIMESTAMP_HEADER]: String(timestamp),
    [EVENT_HEADER]: input.eventType,
    ...deliveryHeaders(input, timestamp),
  };
}

/** Headers for an FX `rate_alert` delivery: bare hex in `X-Service-Signature-256`, version 2. */
export function buildFxWebhookHeaders(input: SignedHeadersInput): Record<string, string> {
  const timestamp = input.timestamp ?? currentUnixSeconds();
  const signature = computeSignature(input.secret, timestamp, input.rawBody);
  return {
    [CONTENT_TYPE_HEADER]: JSON_CONTENT_TYPE,
    [FX_SIGNATURE_HEADER]: signature,
    [FX_SIGNATURE_VERSION_HEADER]: FX_SIGNATURE_VERSION,
    [TIMESTAMP_HEADER]: String(timestamp),
    [EVENT_HEADER]: FX_EVENT_TYPE,
    ...deliveryHeaders(input, timestamp),
  };
}

function currentUnixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
