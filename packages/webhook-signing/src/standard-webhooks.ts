import { createHmac } from 'node:crypto';
import { assertRawBody } from './compute-signature.js';
import { STANDARD_ID_HEADER, STANDARD_SIGNATURE_HEADER, STANDARD_TIMESTAMP_HEADER } from './header-names.js';
import { standardWebhooksKey } from './signing-secret.js';

/** `v1,` + base64 HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the bytes the secret encodes. */
export function computeStandardSignature(secret: string, id: string, timestamp: number, rawBody: string | Uint8Array): string {
  assertRawBody(rawBody);
  const digest = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${id}.${timestamp}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('base64');
  return `v1,${digest}`;
}

/**
 * The Standard Webhooks headers (https://www.standardwebhooks.com): one `v1` signature per secret,
 * space-separated, so that during a rotation's grace window a receiver holding either secret verifies.
 */
export function buildStandardWebhookHeaders(input: { secrets: readonly string[]; id: string; timestamp: number; rawBody: string | Uint8Array }): Record<string, string> {
  if (input.secrets.length === 0) throw new TypeError('at least one signing secret is needed');
  return {
    [STANDARD_ID_HEADER]: input.id,
    [STANDARD_TIMESTAMP_HEADER]: String(input.timestamp),
    [STANDARD_SIGNATURE_HEADER]: input.secrets.map((secret) => computeStandardSignature(secret, input.id, input.timestamp, input.rawBody)).join(' '),
  };
}
