import { ApiError, allVerifications, allWebhookDeliveries, createIdentityClient, type IdentityClient } from '@svc/identity-client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessTokens, verificationCases } from '../src/db/schema.js';
import { ACCESS_TOKEN_SECONDS } from '../src/domain/access/access-tokens.js';
import { makeCertificate, type TestCertificate } from './certificates.js';
import type { TestApp } from './helpers.js';
import { partnerCredentials, startTlsService } from './tls-service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** @svc/identity-client against the real service over HTTPS with mutual TLS. */
describe('the identity client', () => {
  let test: TestApp;
  let origin: string;
  let serverCert: TestCertificate;
  const clients: IdentityClient[] = [];
  const open = (options: Parameters<typeof createIdentityClient>[0]) => {
    const client = createIdentityClient(options);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    // Loopback webhook targets are allowed so endpoints can be registered; no worker runs, so nothing is sent.
    ({ test, origin, serverCert } = await startTlsService({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await test.close();
  });

  it('gets a certificate-bound token over mutual TLS, shares one request, caches it and replaces it before it expires', async () => {
    const partner = await partnerCredentials(test, origin, serverCert);
    let now = Date.now();
    const client = open({ ...partner.clientOptions, now: () => now });
    const tokensIssued = async () => (await test.db.select().from(accessTokens).where(eq(accessTokens.tenantId, partner.tenant.tenantId))).length;

    const first = await Promise.all([client.tokens.accessToken(), client.tokens.accessToken(), client.tokens.accessToken()]);
    expect(new Set(first).size).toBe(1);
    expect(await tokensIssued()).toBe(1);
    const { data: listed } = await client.api.GET('/api/partner/v1/oauth/clients');
    expect(listed!.map((item) => item.clientId)).toEqual([partner.clientId]);
    expect(await tokensIssued()).toBe(1);

    // 61 s before expiry the cached token still serves; 59 s before, it is replaced.
    now += (ACCESS_TOKEN_SECONDS - 61) * 1000;
    expect(await client.tokens.accessToken()).toBe(first[0]);
    now += 2000;
    const second = await client.tokens.accessToken();
    expect(second).not.toBe(first[0]);
    expect(await tokensIssued()).toBe(2);
    const { data: again } = await client.api.GET('/api/partner/v1/oauth/clients');
    expect(again).toHaveLength(1);
  });

  it('throws a typed error for a certificate that is not registered', async () => {
    const partner = await partnerCredentials(test, origin, serverCert);
    const stranger = await makeCertificate({ cn: 'stranger' });
    const client = open({ ...partner.clientOptions, certificate: stranger.certPem, privateKey: stranger.keyPem });
    const failure = await client.api.GET('/api/partner/v1/oauth/clients').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 401, code: 'INVALID_CLIENT', problem: { error: 'invalid_client' } });
  });

  it('throws problem+json answers as ApiError with their code', async () => {
    const client = open((await partnerCredentials(test, origin, serverCert)).clientOptions);
    const missing = await client.api
      .GET('/api/partner/v1/verifications/{caseId}', { params: { path: { caseId: '00000000-0000-4000-8000-000000000000' } } })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', problem: { status: 404, code: 'NOT_FOUND' } });
    expect((missing as ApiError).message).toMatch(/^GET \/api\/partner\/v1\/verifications\/0{8}-.* answered 404 NOT_FOUND/);

    const invalid = await client.api.POST('/api/partner/v1/verifications', { body: { documentType: 'Library card' as never } }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('sends a fresh Idempotency-Key with each changing call unless the caller gives one', async () => {
    const partner = await partnerCredentials(test, origin, serverCert);
    const client = open(partner.clientOptions);
    const body = { documentType: 'SyrianPassport' as const, externalReference: 'order-7' };
    const one = (await client.api.POST('/api/partner/v1/verifications', { body })).data!;
    const two = (await client.api.POST('/api/partner/v1/verifications', { body })).data!;
    expect(one.caseId).not.toBe(two.caseId);
    const keys = await test.db
      .select({ key: verificationCases.idempotencyKey })
      .from(verificationCases)
      .where(eq(verificationCases.tenantId, partner.tenant.tenantId));
    // Keys the service generates itself start with "generated:"; these came from the client.
    expect(keys.map((row) => row.key)).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID)]);

    const headers = { 'idempotency-key': 'order-8' };
    const first = (await client.api.POST('/api/partner/v1/verifications', { headers, body: { ...body, externalReference: 'order-8' } })).data!;
    const retry = (await client.api.POST('/api/partner/v1/verifications', { headers, body: { ...body, externalReference: 'order-8' } })).data!;
    expect(retry.caseId).toBe(first.caseId);
    const [stored] = await test.db.select().from(verificationCases).where(and(eq(verificationCases.tenantId, partner.tenant.tenantId), eq(verificationCases.id, first.caseId)));
    expect(stored!.idempotencyKey).toBe('order-8');
  });

  it("walks every page of a tenant's cases by cursor, and nothing of another tenant's", async () => {
    const acme = await partnerCredentials(test, origin, serverCert, { name: 'Acme pages' });
    const other = await partnerCredentials(test, origin, serverCert, { name: 'Other pages' });
    const acmeClient = open(acme.clientOptions);
    const otherClient = open(other.clientOptions);
    const created: string[] = [];
    for (let index = 0; index < 7; index++) {
      created.push((await acmeClient.api.POST('/api/partner/v1/verifications', { body: { documentType: 'SyrianNationalId', externalReference: `page-${index}` } })).data!.caseId);
    }
    await otherClient.api.POST('/api/partner/v1/verifications', { body: { documentType: 'SyrianPassport', externalReference: 'page-other' } });

    const walked: string[] = [];
    for await (const item of allVerifications(acmeClient.api, { pageSize: 3 })) walked.push(item.id);
    expect(walked).toHaveLength(7);
    expect([...walked].sort()).toEqual([...created].sort());

    const filtered: string[] = [];
    for await (const item of allVerifications(acmeClient.api, { pageSize: 2, search: 'page-6' })) filtered.push(item.id);
    expect(filtered).toEqual([created[6]]);

    // Stopping early fetches nothing more: the first page's first item, then done.
    for await (const item of allVerifications(acmeClient.api, { pageSize: 3 })) {
      expect(created).toContain(item.id);
      break;
    }
  });

  it("walks every page of an endpoint's deliveries", async () => {
    const partner = await partnerCredentials(test, origin, serverCert);
    const client = open(partner.clientOptions);
    const { data: hook } = await client.api.POST('/api/partner/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['verification.approved'] } });
    const id = hook!.endpoint.id;
    for (let index = 0; index < 5; index++) await client.api.POST('/api/partner/v1/webhooks/{id}/test', { params: { path: { id } } });

    const walked: string[] = [];
    for await (const delivery of allWebhookDeliveries(client.api, id, { pageSize: 2 })) walked.push(delivery.id);
    expect(walked).toHaveLength(5);
    expect(new Set(walked).size).toBe(5);

    const approvedOnly: string[] = [];
    for await (const delivery of allWebhookDeliveries(client.api, id, { pageSize: 2, eventType: 'verification.approved' })) approvedOnly.push(delivery.id);
    expect(approvedOnly).toEqual([]);

    const foreign = open((await partnerCredentials(test, origin, serverCert, { name: 'Globex' })).clientOptions);
    const refused = await (async () => {
      for await (const delivery of allWebhookDeliveries(foreign.api, id)) return delivery;
    })().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBeGreaterThanOrEqual(403);
  });
});
