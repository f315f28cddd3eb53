import { randomBytes } from 'node:crypto';

export const SIGNING_SECRET_PREFIX = 'whsec_';

const SECRET_RANDOM_BYTES = 32;
// Either base64 alphabet: secrets issued before Standard Webhooks support were base64url without padding.
const BASE64_EITHER_ALPHABET = /^[A-Za-z0-9+/_-]+={0,2}$/;

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
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret;
  if (!BASE64_EITHER_ALPHABET.test(encoded)) {
    throw new TypeError('a Standard Webhooks secret is whsec_ followed by base64; this secret cannot give a Standard Webhooks key');
  }
  return Buffer.from(encoded.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
}

/**
 * The same key written as Standard Webhooks libraries read it (`whsec_` + standard base64). A secret issued
 * in that form comes back unchanged; an earlier base64url secret gets its equivalent, which verifies the
 * `webhook-signature` header only (the spec's own headers keep using the secret exactly as issued).
 */
export function toStandardWebhooksSecret(secret: string): string {
  return SIGNING_SECRET_PREFIX + standardWebhooksKey(secret).toString('base64');
}
