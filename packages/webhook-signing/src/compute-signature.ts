import { createHmac } from 'node:crypto';

const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * Lowercase hex HMAC-SHA256 over `{timestamp}.{rawBody}`.
 *
 * The key is the secret string exactly as shown to the user (`whsec_...` included) as UTF-8 bytes,
 * as both specs' receivers already verify. The Standard Webhooks headers, sent beside these, use the
 * bytes the part after `whsec_` encodes instead (standard-webhooks.ts).
 *
 * A string timestamp is signed as given (the receiver passes the header text verbatim, so a
 * sender's formatting is what counts); a number is formatted as a plain decimal integer.
 * A string body is encoded as UTF-8; bytes are signed as they are.
 */
export function computeSignature(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  assertUsableSecret(secret);
  const timestampText = formatTimestamp(timestamp);
  assertRawBody(rawBody);
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestampText}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

export function assertUsableSecret(secret: unknown): asserts secret is string {
  // An empty key still produces an HMAC, which would make a misconfigured secret look like it works.
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('webhook signing secret must be a non-empty string');
  }
}

export function assertRawBody(rawBody: unknown): asserts rawBody is string | Uint8Array {
  // Callers in plain JS (or with an `any` body from a framework) often hand over the parsed JSON
  // object; signing its re-serialisation would silently never match, so fail loudly instead.
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError(
      `rawBody must be the raw request body as a string or Uint8Array/Buffer, got ${rawBody === null ? 'null' : typeof rawBody}; ` +
        'verify before any JSON body parser runs',
    );
  }
}

function formatTimestamp(timestamp: number | string): string {
  if (typeof timestamp === 'number') {
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new RangeError(`webhook timestamp must be a non-negative integer of Unix seconds, got ${timestamp}`);
    }
    return String(timestamp);
  }
  if (typeof timestamp !== 'string' || !DECIMAL_DIGITS.test(timestamp)) {
    throw new RangeError(`webhook timestamp must be decimal digits only, got ${JSON.stringify(timestamp)}`);
  }
  return timestamp;
}
