import { describe, expect, it } from 'vitest';
import { SIGNING_SECRET_PREFIX, generateSigningSecret } from '../src/index.js';

describe('generateSigningSecret', () => {
  it('is whsec_ followed by 43 base64url characters (32 bytes, no padding)', () => {
    const secret = generateSigningSecret();
    expect(SIGNING_SECRET_PREFIX).toBe('whsec_');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(SIGNING_SECRET_PREFIX.length), 'base64url')).toHaveLength(32);
  });

  it('never repeats across 1000 secrets', () => {
    const secrets = new Set(Array.from({ length: 1000 }, () => generateSigningSecret()));
    expect(secrets.size).toBe(1000);
  });
});
