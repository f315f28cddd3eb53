import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildFxWebhookHeaders, buildIdentityWebhookHeaders, buildStandardWebhookHeaders, computeStandardSignature, generateSigningSecret, verifyIdentityWebhook } from '../src/index.js';

const BODY = '{"eventId":"e1","eventType":"verification.approved","data":{"name":"Zoë"}}';
const ID = '5f0c7d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f';
const SIGNED_AT = 1_700_000_000;
const DELIVERY = { id: ID, attempt: 2 };

afterEach(() => vi.useRealTimers());

function atSigningTime() {
  vi.useFakeTimers({ now: SIGNED_AT * 1000, toFake: ['Date'] });
}

describe('Standard Webhooks signatures', () => {
  it('match the standardwebhooks package over id, timestamp and the UTF-8 body', () => {
    const secret = generateSigningSecret();
    expect(computeStandardSignature(secret, ID, SIGNED_AT, BODY)).toBe(new Webhook(secret).sign(ID, new Date(SIGNED_AT * 1000), BODY));
    expect(computeStandardSignature(secret, ID, SIGNED_AT, Buffer.from(BODY))).toBe(computeStandardSignature(secret, ID, SIGNED_AT, BODY));
  });

  it('carry one v1 signature per secret, current first', () => {
    const [current, previous] = [generateSigningSecret(), generateSigningSecret()];
    const headers = buildStandardWebhookHeaders({ secrets: [current, previous], id: ID, timestamp: SIGNED_AT, rawBody: BODY });
    expect(headers['webhook-signature']).toBe(`${computeStandardSignature(current, ID, SIGNED_AT, BODY)} ${computeStandardSignature(previous, ID, SIGNED_AT, BODY)}`);
    expect(() => buildStandardWebhookHeaders({ secrets: [], id: ID, timestamp: SIGNED_AT, rawBody: BODY })).toThrow(TypeError);
  });
});

describe.each([
  { name: 'identity', build: buildIdentityWebhookHeaders, own: 'X-Service-Signature' },
  { name: 'fx', build: buildFxWebhookHeaders, own: 'X-Service-Signature-256' },
])('$name headers with a delivery', ({ build, own }) => {
  const secret = generateSigningSecret();
  const headersFor = (extra: { previousSecret?: string } = {}) => build({ secret, rawBody: BODY, timestamp: SIGNED_AT, eventType: 'verification.approved', delivery: DELIVERY, ...extra });

  it('carry webhook-id (the delivery id), webhook-timestamp (the same second) and a signature the package verifies', () => {
    const headers = headersFor();
    expect(headers['webhook-id']).toBe(ID);
    expect(headers['webhook-timestamp']).toBe(String(SIGNED_AT));
    expect(headers['X-Service-Timestamp']).toBe(String(SIGNED_AT));
    atSigningTime();
    expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('during a grace window verify with either secret, while the spec header is the current secret only', () => {
    const previous = generateSigningSecret();
    const headers = headersFor({ previousSecret: previous });
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headers[own]).toBe(headersFor()[own]);
    atSigningTime();
    expect(new Webhook(secret).verify(BODY, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(BODY, headers)).toBeTruthy();
    expect(() => new Webhook(generateSigningSecret()).verify(BODY, headers)).toThrow(WebhookVerificationError);
    if (own === 'X-Service-Signature') {
      expect(verifyIdentityWebhook({ secret, headers, rawBody: BODY, now: Date.now }).ok).toBe(true);
      expect(verifyIdentityWebhook({ secret: previous, headers, rawBody: BODY, now: Date.now }).ok).toBe(false);
    }
  });

  it('are refused by the package for a tampered body, a wrong secret and an old timestamp', () => {
    const headers = headersFor();
    atSigningTime();
    expect(() => new Webhook(secret).verify(BODY.replace('Zoë', 'Zoe'), headers)).toThrow('No matching signature found');
    expect(() => new Webhook(generateSigningSecret()).verify(BODY, headers)).toThrow('No matching signature found');
    vi.setSystemTime((SIGNED_AT + 301) * 1000);
    expect(() => new Webhook(secret).verify(BODY, headers)).toThrow('Message timestamp too old');
  });
});
