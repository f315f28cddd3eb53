/**
 * The secret conversion both servers and the partner portal run: no Node built-ins here (atob/btoa exist in
 * browsers and in Node), so the portal computes a partner's standard form in the page and never sends the secret.
 */

export const SIGNING_SECRET_PREFIX = 'whsec_';

// Either base64 alphabet: secrets issued before Standard Webhooks support were base64url without padding.
const BASE64_EITHER_ALPHABET = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * The Standard Webhooks key of a secret (the bytes that the part after `whsec_` encodes), as a binary string
 * (one character per byte), read in either base64 alphabet so that secrets issued in base64url keep working.
 */
export function standardWebhooksKeyBinary(secret: string): string {
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret;
  if (!BASE64_EITHER_ALPHABET.test(encoded)) {
    throw new TypeError('a Standard Webhooks secret is whsec_ followed by base64; this secret cannot give a Standard Webhooks key');
  }
  const unpadded = encoded.replace(/=+$/, '');
  // A lone last character carries no whole byte: dropped, as Node's base64 decoder (and so the servers) always did.
  const whole = unpadded.length % 4 === 1 ? unpadded.slice(0, -1) : unpadded;
  const standard = whole.replaceAll('-', '+').replaceAll('_', '/');
  return atob(standard + '='.repeat((4 - (standard.length % 4)) % 4));
}

/**
 * The same key written as Standard Webhooks libraries read it (`whsec_` + standard, padded base64). A secret
 * issued in that form comes back unchanged; an earlier base64url secret gets its equivalent, which verifies the
 * `webhook-signature` header only (the spec's own headers keep using the secret exactly as issued).
 */
export function toStandardWebhooksSecret(secret: string): string {
  return SIGNING_SECRET_PREFIX + btoa(standardWebhooksKeyBinary(secret.trim()));
}
