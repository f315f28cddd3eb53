import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildFxWebhookHeaders, buildIdentityWebhookHeaders } from '../src/index.js';

// Digests from known-answer-vectors.test.ts (openssl):
// printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s'
const SECRET = 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s';
const DIGEST_AT_1700000000 = 'fd201898ca6721c573d20c88425b6a2f9073128d08cce2ef113d2af24308255f';

describe('buildIdentityWebhookHeaders', () => {
  it('returns exactly the identity header set', () => {
    const headers = buildIdentityWebhookHeaders({
      secret: SECRET,
      rawBody: '{"a":1}',
      timestamp: 1700000000,
      eventType: 'verification.approved',
    });
    expect(headers).toStrictEqual({
      'Content-Type': 'application/json',
      'X-Service-Signature': `sha256=${DIGEST_AT_1700000000}`,
      'X-Service-Timestamp': '1700000000',
      'X-Service-Event': 'verification.approved',
    });
  });
});

describe('buildFxWebhookHeaders', () => {
  it('returns exactly the FX header set', () => {
    const headers = buildFxWebhookHeaders({ secret: SECRET, rawBody: '{"a":1}', timestamp: 1700000000 });
    expect(headers).toStrictEqual({
      'Content-Type': 'application/json',
      'X-Service-Signature-256': DIGEST_AT_1700000000,
      'X-Service-Signature-Version': '2',
      'X-Service-Timestamp': '1700000000',
      'X-Service-Event': 'rate_alert',
    });
  });
});

describe('default timestamp', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('uses the current Unix second when no timestamp is given', () => {
    // Fake timers only move Date.now so the default can be asserted exactly; no I/O is replaced.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(1700000000_999));
    expect(buildFxWebhookHeaders({ secret: SECRET, rawBody: '{"a":1}' })['X-Service-Signature-256']).toBe(DIGEST_AT_1700000000);
    const identity = buildIdentityWebhookHeaders({ secret: SECRET, rawBody: '{"a":1}', eventType: 'verification.failed' });
    expect(identity['X-Service-Timestamp']).toBe('1700000000');
    expect(identity['X-Service-Signature']).toBe(`sha256=${DIGEST_AT_1700000000}`);
  });

  it('rejects a fractional timestamp', () => {
    expect(() => buildFxWebhookHeaders({ secret: SECRET, rawBody: '{}', timestamp: 1700000000.5 })).toThrow(RangeError);
  });
});
