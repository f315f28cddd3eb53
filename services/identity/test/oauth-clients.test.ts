import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../src/db/schema.js';
import { makeCertificate } from './certificates.js';
import { BASE, buildTestApp, clientWithToken, createLoggedInTenant, registerClient, type LoggedInTenant, type TestApp } from './helpers.js';

describe('OAuth client registration, listing and revocation', () => {
  let test: TestApp;
  let tenantA: LoggedInTenant;
  let tenantB: LoggedInTenant;

  beforeAll(async () => {
    test = await buildTestApp();
    tenantA = await createLoggedInTenant(test, 'Tenant A');
    tenantB = await createLoggedInTenant(test, 'Tenant B');
  });
  afterAll(() => test.close());

  const register = (tenant: LoggedInTenant, payload: Record<string, unknown>) =>
    test.app.inject({ method: 'POST', url: `${BASE}/oauth/clients`, headers: tenant.portal, payload });

  it('registers a client: svc_ + 32 hex, SHA-256 thumbprint, subject DN, validity, default scopes', async () => {
    const cert = await makeCertificate({ cn: 'payments-backend' });
    const response = await register(tenantA, { clientName: 'Payments', certificatePem: cert.certPem });
    expect(response.statusCode).toBe(201);
    const body = response.json<{ clientId: string; client: Record<string, unknown> }>();
    expect(body.clientId).toMatch(/^svc_[0-9a-f]{32}$/);
    expect(body.client).toMatchObject({
      clientId: body.clientId,
      clientName: 'Payments',
      certificateThumbprint: cert.thumbprint,
      certificateSubjectDN: 'CN=payments-backend,O=Test Partner,C=SY',
      allowedScopes: 'verifications webhooks evidence reports',
      isActive: true,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(body.client.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(body.client.certificateNotAfter as string)).toBeGreaterThan(Date.now());
    expect(Date.parse(body.client.certificateNotBefore as string)).toBeLessThan(Date.now());
    const audit = await test.db.select().from(auditLog);
    expect(audit.find((row) => row.action === 'oauth_client.registered' && row.target === `oauth_client:${body.client.id as string}`)).toMatchObject({
      tenantId: tenantA.tenantId,
      actor: `user:${tenantA.adminUserId}`,
    });
  });

  it('keeps requested scopes in canonical order and refuses unknown ones', async () => {
    const ok = await register(tenantA, { clientName: 'Reports', certificatePem: (await makeCertificate()).certPem, allowedScopes: 'reports  verifications reports' });
    expect(ok.json()).toMatchObject({ client: { allowedScopes: 'verifications reports' } });
    const bad = await register(tenantA, { clientName: 'X', certificatePem: (await makeCertificate()).certPem, allowedScopes: 'verifications admin' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', detail: expect.stringContaining('"admin"') });
  });

  it.each([
    ['garbage', 'not a certificate', /PEM form/],
    ['broken base64', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', /not a parseable/],
  ])('refuses a malformed certificate (%s) with 400', async (_name, certificatePem, detail) => {
    const response = await register(tenantA, { clientName: 'Bad', certificatePem });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', detail: expect.stringMatching(detail) });
  });

  it('refuses an expired and a not-yet-valid certificate with 400', async () => {
    const expired = await makeCertificate({ notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    const future = await makeCertificate({ notBefore: new Date(Date.now() + 86_400_000), notAfter: new Date(Date.now() + 10 * 86_400_000) });
    const expiredResponse = await register(tenantA, { clientName: 'Old', certificatePem: expired.certPem });
    expect(expiredResponse.statusCode).toBe(400);
    expect(expiredResponse.json()).toMatchObject({ detail: expect.stringMatching(/expired/) });
    const futureResponse = await register(tenantA, { clientName: 'Future', certificatePem: future.certPem });
    expect(futureResponse.statusCode).toBe(400);
    expect(futureResponse.json()).toMatchObject({ detail: expect.stringMatching(/not valid before/) });
  });

  it('refuses a private key pasted by mistake, alone or with the certificate, without echoing it', async () => {
    const cert = await makeCertificate();
    for (const certificatePem of [cert.keyPem, `${cert.certPem}${cert.keyPem}`]) {
      const response = await register(tenantA, { clientName: 'Oops', certificatePem });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ detail: expect.stringMatching(/private key/) });
      expect(response.body).not.toContain(cert.keyPem.split('\n')[1]);
    }
  });

  it('refuses a chain of several certificates with 400', async () => {
    const response = await register(tenantA, { clientName: 'Chain', certificatePem: `${(await makeCertificate()).certPem}${(await makeCertificate()).certPem}` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ detail: expect.stringMatching(/exactly one certificate/) });
  });

  it('rejects a missing or empty field, or an unknown one, with 400', async () => {
    for (const payload of [{ clientName: 'x' }, { certificatePem: 'x' }, { clientName: '', certificatePem: 'x' }, { clientName: 'x', certificatePem: 'x', secret: 1 }]) {
      expect((await register(tenantA, payload)).statusCode, JSON.stringify(payload)).toBe(400);
    }
  });

  it('refuses a certificate already registered, in the same or another tenant, with 409', async () => {
    const cert = await makeCertificate();
    expect((await register(tenantA, { clientName: 'First', certificatePem: cert.certPem })).statusCode).toBe(201);
    const sameTenant = await register(tenantA, { clientName: 'Again', certificatePem: cert.certPem });
    expect(sameTenant.statusCode).toBe(409);
    const otherTenant = await register(tenantB, { clientName: 'Stolen', certificatePem: cert.certPem });
    expect(otherTenant.statusCode).toBe(409);
    expect(otherTenant.json()).toMatchObject({ code: 'CONFLICT', detail: expect.stringMatching(/already registered/) });
    expect(otherTenant.body).not.toContain(tenantA.tenantId);
  });

  it('allows 5 active clients per tenant: the sixth is 409, and revoking one frees a place', async () => {
    const tenant = await createLoggedInTenant(test, 'Five');
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await registerClient(test, tenant)).id);
    const sixth = await register(tenant, { clientName: 'Sixth', certificatePem: (await makeCertificate()).certPem });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json()).toMatchObject({ detail: expect.stringMatching(/5 active OAuth clients/) });
    expect((await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${ids[0]}`, headers: tenant.portal })).statusCode).toBe(204);
    expect((await register(tenant, { clientName: 'Sixth', certificatePem: (await makeCertificate()).certPem })).statusCode).toBe(201);
  });

  it("lists only the tenant's own clients, to a portal session or an access token", async () => {
    const tenant = await createLoggedInTenant(test, 'Lister');
    const { id, headers } = await clientWithToken(test, tenant);
    const viaPortal = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: tenant.portal });
    expect(viaPortal.statusCode).toBe(200);
    expect(viaPortal.json<{ id: string }[]>().map((client) => client.id)).toEqual([id]);
    const viaToken = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers });
    expect(viaToken.statusCode).toBe(200);
    expect(viaToken.json()).toEqual(viaPortal.json());
    const otherTenant = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: tenantB.portal });
    expect(otherTenant.json<{ id: string }[]>().map((client) => client.id)).not.toContain(id);
  });

  it('revokes a client: 204, then 400 when repeated, 404 for an unknown or another tenant’s client', async () => {
    const { id } = await registerClient(test, tenantB);
    const byOtherTenant = await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${id}`, headers: tenantA.portal });
    expect(byOtherTenant.statusCode).toBe(404);
    expect(byOtherTenant.json()).toMatchObject({ code: 'NOT_FOUND' });
    const unknown = await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/00000000-0000-4000-8000-000000000000`, headers: tenantB.portal });
    expect(unknown.statusCode).toBe(404);
    const notUuid = await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/abc`, headers: tenantB.portal });
    expect(notUuid.statusCode).toBe(400);
    const revoked = await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${id}`, headers: tenantB.portal });
    expect(revoked.statusCode).toBe(204);
    const again = await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${id}`, headers: tenantB.portal });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'CLIENT_ALREADY_REVOKED' });
    const listed = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: tenantB.portal });
    expect(listed.json<{ id: string; isActive: boolean; revokedAt: string | null }[]>().find((client) => client.id === id)).toMatchObject({ isActive: false, revokedAt: expect.any(String) });
  });

  it('lets a revoked client’s certificate be registered again as a new client', async () => {
    const cert = await makeCertificate();
    const first = await registerClient(test, tenantB, cert);
    await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${first.id}`, headers: tenantB.portal });
    expect((await register(tenantB, { clientName: 'Reissued', certificatePem: cert.certPem })).statusCode).toBe(201);
  });

  it('needs a portal session to register or revoke: no credentials 401, an access token 403', async () => {
    const cert = await makeCertificate();
    const anonymous = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/clients`, payload: { clientName: 'x', certificatePem: cert.certPem } });
    expect(anonymous.statusCode).toBe(401);
    const tenant = await createLoggedInTenant(test, 'Token only');
    const { headers, id } = await clientWithToken(test, tenant);
    const withToken = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/clients`, headers, payload: { clientName: 'x', certificatePem: cert.certPem } });
    expect(withToken.statusCode).toBe(403);
    const deleteWithToken = await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${id}`, headers });
    expect(deleteWithToken.statusCode).toBe(403);
    const listAnonymous = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients` });
    expect(listAnonymous.statusCode).toBe(401);
  });
});
