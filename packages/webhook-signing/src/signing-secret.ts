import { randomBytes } from 'node:crypto';
import { SIGNING_SECRET_PREFIX, standardWebhooksKeyBinary } from './standard-secret.js';

export { SIGNING_SECRET_PREFIX, toStandardWebhooksSecret } from './standard-secret.js';

const SECRET_RANDOM_BYTES = 32;

/**
 * A new show-once signing secret: `whsec_` + standard, padded base64 of 32 random bytes (44 characters), the
 * form Standard Webhooks libraries (`new Webhook(secret)`) take as is. For the spec's own headers the whole
 * string, prefix included, is the HMAC key; for the Standard Webhooks headers the key is the 32 bytes.
 */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(SECRET_RANDOM_BYTES).toString('base64');
}

/**
 * The Standard Webhooks HMAC key of a secret: the bytes that the part after `whsec_` encodes, read in either
 * base64 alphabet so that secrets issued in base64url keep working.
 */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(standardWebhooksKeyBinary(secret), 'latin1');
}
