import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFxWebhookHeaders,
  buildIdentityWebhookHeaders,
  generateSigningSecret,
  verifyFxWebhook,
  verifyIdentityWebhook,
} from '../src/index.js';
import type { VerificationResult, VerifyOptions } from '../src/index.js';

// A real receiver on a real socket: node:http hands us lower-case IncomingHttpHeaders and the
// body bytes as the network delivered them, which is exactly what partners will verify against.
const secret = generateSigningSecret();
const verifiersByPath: Record<string, (options: VerifyOptions) => VerificationResult> = {
  '/fx': verifyFxWebhook,
  '/identity': verifyIdentityWebhook,
};
const receivedBodies: Buffer[] = [];
let server: Server;
let baseUrl: string;

async function readRawBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    readRawBody(request)
      .then((rawBody) => {
        const verify = verifiersByPath[request.url ?? ''];
        if (verify === undefined) {
          response.writeHead(404).end();
          return;
        }
        const result = verify({ secret, headers: request.headers, rawBody });
        if (!result.ok) {
          response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ reason: result.reason }));
          return;
        }
        // Parse only after the signature checked out.
        JSON.parse(rawBody.toString('utf8'));
        receivedBodies.push(rawBody);
        response.writeHead(204).end();
      })
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

const rateAlertBody = JSON.stringify({
  event: 'rate_alert',
  currency: 'USD',
  source: 'MARKET',
  alertType: 'ABOVE',
  threshold: 13000,
  currentRate: 13150.5,
  previousRate: 12990,
  label: 'تنبيه سعر الدولار',
  webhookId: '0b9f7a52-4c3e-4e8e-9d6b-2f1a7c5e8d90',
  timestampUtc: '2025-11-23T10:00:00Z',
});

const identityBody = JSON.stringify({
  eventType: 'verification.approved',
  eventId: 'evt_6f1c2b1e-3d4a-4c5b-9e8f-0a1b2c3d4e5f',
  timestamp: '2025-11-23T10:00:00+00:00',
  apiVersion: 'v1',
  tenantId: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
  data: { caseId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', status: 'Approved', decisionReason: 'مطابقة الوجه' },
});

describe('real HTTP receiver', () => {
  it('answers 204 to an FX delivery signed with buildFxWebhookHeaders', async () => {
    const response = await fetch(`${baseUrl}/fx`, {
      method: 'POST',
      headers: buildFxWebhookHeaders({ secret, rawBody: rateAlertBody }),
      body: rateAlertBody,
    });
    expect(response.status).toBe(204);
    expect(receivedBodies.at(-1)?.equals(Buffer.from(rateAlertBody, 'utf8'))).toBe(true);
  });

  it('answers 204 to an identity delivery signed with buildIdentityWebhookHeaders', async () => {
    const response = await fetch(`${baseUrl}/identity`, {
      method: 'POST',
      headers: buildIdentityWebhookHeaders({ secret, rawBody: identityBody, eventType: 'verification.approved' }),
      body: identityBody,
    });
    expect(response.status).toBe(204);
    expect(receivedBodies.at(-1)?.equals(Buffer.from(identityBody, 'utf8'))).toBe(true);
  });

  it('answers 204 when the body is sent as bytes', async () => {
    const bodyBytes = new TextEncoder().encode(rateAlertBody);
    const response = await fetch(`${baseUrl}/fx`, {
      method: 'POST',
      headers: buildFxWebhookHeaders({ secret, rawBody: bodyBytes }),
      body: bodyBytes,
    });
    expect(response.status).toBe(204);
  });

  it('rejects a body that differs from the signed one by a single space', async () => {
    const response = await fetch(`${baseUrl}/identity`, {
      method: 'POST',
      headers: buildIdentityWebhookHeaders({ secret, rawBody: identityBody, eventType: 'verification.approved' }),
      body: JSON.stringify(JSON.parse(identityBody), null, 1),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toStrictEqual({ reason: 'signature_mismatch' });
  });

  it('rejects a delivery signed with another secret', async () => {
    const response = await fetch(`${baseUrl}/fx`, {
      method: 'POST',
      headers: buildFxWebhookHeaders({ secret: generateSigningSecret(), rawBody: rateAlertBody }),
      body: rateAlertBody,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toStrictEqual({ reason: 'signature_mismatch' });
  });

  it('rejects a delivery signed ten minutes ago', async () => {
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const response = await fetch(`${baseUrl}/fx`, {
      method: 'POST',
      headers: buildFxWebhookHeaders({ secret, rawBody: rateAlertBody, timestamp: tenMinutesAgo }),
      body: rateAlertBody,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toStrictEqual({ reason: 'stale_timestamp' });
  });
});
