import { randomBytes } from 'node:crypto';

export const SIGNING_SECRET_PREFIX = 'whsec_';

const SECRET_RANDOM_BYTES = 32;

/**
 * A new show-once signing secret: `whsec_` + unpadded base64url of 32 random bytes (43 characters).
 * The whole string, prefix included, is the HMAC key; it is never base64-decoded.
 */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(SECRET_RANDOM_BYTES).toString('base64url');
}
