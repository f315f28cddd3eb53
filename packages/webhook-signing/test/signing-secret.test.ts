import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { SIGNING_SECRET_PREFIX, generateSigningSecret, standardWebhooksKey, toStandardWebhooksSecret } from '../src/index.js';

// A secret as issued before Standard Webhooks support: base64url without padding, here with both - and _.
const LEGACY_SECRET = 'whsec_-_8AAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHx8';

describe('generateSigningSecret', () => {
  it('is whsec_ followed by standard padded base64 of 32 bytes (44 characters)', () => {
    const secret = generateSigningSecret();
    expect(SIGNING_SECRET_PREFIX).toBe('whsec_');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(SIGNING_SECRET_PREFIX.length), 'base64')).toHaveLength(32);
  });

  it('is taken as is by the standardwebhooks package, whose key is the 32 bytes', () => {
    for (let n = 0; n < 50; n++) {
      const secret = generateSigningSecret();
      expect(toStandardWebhooksSecret(secret)).toBe(secret);
      const signed = new Webhook(secret).sign('msg_1', new Date(1_700_000_000_000), '{}');
      expect(new Webhook(standardWebhooksKey(secret), { format: 'raw' }).sign('msg_1', new Date(1_700_000_000_000), '{}')).toBe(signed);
    }
  });

  it('never repeats across 1000 secrets', () => {
    const secrets = new Set(Array.from({ length: 1000 }, () => generateSigningSecret()));
    expect(secrets.size).toBe(1000);
  });
});

describe('secrets issued before, in base64url', () => {
  it('are refused by the standardwebhooks package as they are, and accepted in their standard form', () => {
    expect(() => new Webhook(LEGACY_SECRET).sign('msg_1', new Date(1_700_000_000_000), '{}')).toThrow();
    const standard = toStandardWebhooksSecret(LEGACY_SECRET);
    expect(standard).toBe('whsec_+/8AAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHx8=');
    expect(standardWebhooksKey(standard)).toEqual(standardWebhooksKey(LEGACY_SECRET));
    expect(standardWebhooksKey(LEGACY_SECRET)).toEqual(Buffer.from(LEGACY_SECRET.slice(6), 'base64url'));
  });

  it('a secret that is not base64 after whsec_ has no Standard Webhooks key', () => {
    expect(() => standardWebhooksKey('whsec_not base64!')).toThrow(TypeError);
    expect(() => toStandardWebhooksSecret('whsec_not base64!')).toThrow(TypeError);
  });

  it('decode any length as Node did: a lone last character is dropped', () => {
    const odd = 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s';
    expect(standardWebhooksKey(odd)).toEqual(Buffer.from(odd.slice(6), 'base64'));
  });

  it('are converted the same when pasted with surrounding white space, as copied from a password manager', () => {
    expect(toStandardWebhooksSecret(`  ${LEGACY_SECRET}\n`)).toBe(toStandardWebhooksSecret(LEGACY_SECRET));
  });
});
