import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFxWebhookHeaders, buildIdentityWebhookHeaders, DELIVERY_ATTEMPT_HEADER, DELIVERY_ID_HEADER, verifyFxWebhook, verifyIdentityWebhook } from '../src/index.js';

// Digest from known-answer-vectors.test.ts (openssl):
// printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s'
const SECRET = 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s';
const SIGNED_AT = 1700000000;
const BODY = '{"a":1}';
const DIGEST_AT_1700000000 = 'fd201898ca6721c573d20c88425b6a2f9073128d08cce2ef113d2af24308255f';
const DELIVERY = { id: '5f0c7d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f', attempt: 3 };
const atSigningTime = () => SIGNED_AT * 1000;

const schemes = [
  {
    name: 'identity',
    build: (delivery?: { id: string; attempt: number }) =>
      buildIdentityWebhookHeaders({ secret: SECRET, rawBody: BODY, timestamp: SIGNED_AT, eventType: 'verification.approved', ...(delivery ? { delivery } : {}) }),
    verify: verifyIdentityWebhook,
    signatureHeader: 'X-Service-Signature',
  },
  {
    name: 'fx',
    build: (delivery?: { id: string; attempt: number }) => buildFxWebhookHeaders({ secret: SECRET, rawBody: BODY, timestamp: SIGNED_AT, ...(delivery ? { delivery } : {}) }),
    verify: verifyFxWebhook,
    signatureHeader: 'X-Service-Signature-256',
  },
] as const;

describe('delivery header names', () => {
  it('are spelled as the specs write them', () => {
    expect(DELIVERY_ID_HEADER).toBe('X-Service-Delivery-Id');
    expect(DELIVERY_ATTEMPT_HEADER).toBe('X-Service-Delivery-Attempt');
  });
});

describe.each(schemes)('$name headers with a delivery', ({ build, verify, signatureHeader }) => {
  it('add the delivery id and the attempt number to exactly the headers sent without it', () => {
    const without = build();
    const withDelivery = build(DELIVERY);
    expect(withDelivery).toStrictEqual({
      ...without,
      'X-Service-Delivery-Id': DELIVERY.id,
      'X-Service-Delivery-Attempt': '3',
      'webhook-id': DELIVERY.id,
      'webhook-timestamp': String(SIGNED_AT),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(build({ id: DELIVERY.id, attempt: 1 })['X-Service-Delivery-Attempt']).toBe('1');
  });

  it('leave the delivery headers out without the option', () => {
    const headers = build();
    expect(headers).not.toHaveProperty(DELIVERY_ID_HEADER);
    expect(headers).not.toHaveProperty(DELIVERY_ATTEMPT_HEADER);
    expect(headers).not.toHaveProperty('webhook-signature');
  });

  it('sign the same bytes whatever the delivery: the signature is unchanged and verifies', () => {
    const headers = build(DELIVERY);
    expect(headers[signatureHeader]).toBe(build()[signatureHeader]);
    expect(headers[signatureHeader]).toContain(DIGEST_AT_1700000000);
    expect(verify({ secret: SECRET, headers, rawBody: BODY, now: atSigningTime })).toEqual({ ok: true, timestamp: SIGNED_AT });
    // Another attempt of the same delivery, signed again: still valid; a tampered body is not.
    expect(verify({ secret: SECRET, headers: build({ ...DELIVERY, attempt: 4 }), rawBody: BODY, now: atSigningTime }).ok).toBe(true);
    expect(verify({ secret: SECRET, headers, rawBody: '{"a":2}', now: atSigningTime })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });
});

describe('delivery headers over a real socket', () => {
  let server: Server;
  let baseUrl: string;
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  });

  it.each(schemes)('reach a $name receiver lower-cased and verify there', async ({ name, build, verify }) => {
    const response = await fetch(`${baseUrl}/${name}`, { method: 'POST', headers: build(DELIVERY), body: BODY });
    expect(response.status).toBe(204);
    const request = received.find((entry) => entry.path === `/${name}`);
    expect(request?.headers['x-service-delivery-id']).toBe(DELIVERY.id);
    expect(request?.headers['x-service-delivery-attempt']).toBe('3');
    expect(verify({ secret: SECRET, headers: request!.headers, rawBody: request!.body, now: atSigningTime })).toEqual({ ok: true, timestamp: SIGNED_AT });
  });
});
