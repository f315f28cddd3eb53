import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret, buildIdentityWebhookHeaders } from '@svc/webhook-signing';
import { runPartnerIntegration, verifyDelivery } from '../../../examples/partner-integration.js';
import type { TestCertificate } from './certificates.js';
import type { TestApp } from './helpers.js';
import { partnerCredentials, startTlsService } from './tls-service.js';

/**
 * examples/partner-integration.ts, the README's complete integration, run against the real
 * service over HTTPS with mutual TLS: its worker decides the sandbox case and delivers the
 * webhooks to the example's receiver, as it would for a partner.
 */
describe('the partner integration example', () => {
  let test: TestApp;
  let origin: string;
  let serverCert: TestCertificate;

  beforeAll(async () => {
    ({ test, origin, serverCert } = await startTlsService({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WORKER_IN_PROCESS: 'true' }));
  });
  afterAll(() => test.close());

  it('creates a sandbox case, captures it, gets the signed decision webhook and reads the decision', async () => {
    const partner = await partnerCredentials(test, origin, serverCert, { sandbox: true });
    const lines: string[] = [];
    const result = await runPartnerIntegration({ identity: partner.clientOptions, timeoutMs: 60_000, log: (line) => lines.push(line) });

    expect(result.decided).toMatchObject({ id: result.caseId, status: 'Approved', sandbox: true });
    expect(result.decided.decisionReason).toEqual(expect.any(String));
    expect(result.events).toEqual(expect.arrayContaining(['verification.session_issued', 'verification.evidence_uploaded', 'verification.approved']));
    expect(lines.at(-1)).toContain(`case ${result.caseId}: Approved`);

    // Its receiver accepts only what the standardwebhooks package verifies with the secret as issued.
    const secret = generateSigningSecret();
    const rawBody = Buffer.from(JSON.stringify({ eventType: 'webhook.test', eventId: 'evt_1', timestamp: new Date().toISOString(), data: {} }));
    const headers = buildIdentityWebhookHeaders({ secret, rawBody, eventType: 'webhook.test', delivery: { id: 'delivery-1', attempt: 1 } });
    expect(verifyDelivery(secret, headers, rawBody)).toMatchObject({ eventId: 'evt_1' });
    expect(verifyDelivery(secret, headers, Buffer.concat([rawBody, Buffer.from(' ')]))).toBeUndefined();
    expect(verifyDelivery(generateSigningSecret(), headers, rawBody)).toBeUndefined();

    // The example removes its endpoint when done.
    const endpoints = await test.app.inject({ method: 'GET', url: '/api/partner/v1/webhooks', headers: partner.tenant.portal });
    expect(endpoints.statusCode).toBe(200);
    expect(JSON.stringify(endpoints.json())).not.toContain('identity-events');
  });
});
