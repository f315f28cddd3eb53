import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * RFC 6238 with the parameters every authenticator app reads from a QR code without asking:
 * HMAC-SHA-1, 6 digits, 30-second steps. Written on node:crypto (30 lines) rather than a package.
 */
export const TOTP = { digits: 6, stepSeconds: 30, secretBytes: 20, window: 1 } as const;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function toBase32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let output = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      output += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) output += BASE32[(value << (5 - bits)) & 31];
  return output;
}

export function fromBase32(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

export const generateTotpSecret = (): string => toBase32(randomBytes(TOTP.secretBytes));

export const totpStepAt = (now: Date): number => Math.floor(now.getTime() / 1000 / TOTP.stepSeconds);

/** RFC 4226 HOTP of one step: dynamic truncation of HMAC-SHA-1 over the 8-byte big-endian counter. */
export function totpCode(secretBase32: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const digest = createHmac('sha1', fromBase32(secretBase32)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP.digits).padStart(TOTP.digits, '0');
}

/**
 * The step (within ±1 of now, for clocks a little apart) whose code this is, or null. Every
 * candidate is compared, in constant time, so the answer's timing says nothing about which matched.
 */
export function matchingTotpStep(secretBase32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const current = totpStepAt(now);
  let matched: number | null = null;
  for (let step = current - TOTP.window; step <= current + TOTP.window; step++) {
    if (timingSafeEqual(Buffer.from(totpCode(secretBase32, step)), Buffer.from(code)) && matched === null) matched = step;
  }
  return matched;
}

/** The otpauth:// URI authenticator apps read from the QR code (Google's Key Uri Format). */
export function totpUri(secretBase32: string, issuer: string, accountName: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(accountName)}`;
  const query = new URLSearchParams({ secret: secretBase32, issuer, algorithm: 'SHA1', digits: String(TOTP.digits), period: String(TOTP.stepSeconds) });
  return `otpauth://totp/${label}?${query.toString()}`;
}
