import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setTenantStatus } from '../src/domain/tenants/tenants.js';
import { makeCertificate } from './certificates.js';
import {
  BASE,
  buildTestApp,
  certificateHeader,
  clientWithToken,
  createLoggedInTenant,
  manualClock,
  registerClient,
  requestToken,
  type LoggedInTenant,
  type TestApp,
} from './helpers.js';

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('certificate-bound tokens: issue, use, introspect, revoke', () => {
  let test: TestApp;
  let tenant: LoggedInTenant;
  let otherTenant: LoggedInTenant;

  beforeAll(async () => {
    test = await buildTestApp();
  });
  // Fresh tenants per test: each test registers clients, and a tenant holds at most 5.
  beforeEach(async () => {
    tenant = await createLoggedInTenant(test, 'Tenant A');
    otherTenant = await createLoggedInTenant(test, 'Tenant B');
  });
  afterAll(() => test.close());

  const listClients = (headers: Record<string, string>, remoteAddress?: string) =>
    test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers, ...(remoteAddress ? { remoteAddress } : {}) });
  const introspect = (headers: Record<string, string>, payload: string | object) => test.app.inject({ method: 'POST', url: `${BASE}/oauth/introspect`, headers, payload });
  const revoke = (headers: Record<string, string>, payload: string | object) => test.app.inject({ method: 'POST', url: `${BASE}/oauth/revoke`, headers, payload });

  it('refuses a body over 8,192 bytes on the OAuth endpoints with a 413 naming that limit, form or JSON', async () => {
    for (const path of ['/oauth/token', '/oauth/introspect', '/oauth/revoke']) {
      for (const [contentType, payload] of [
        ['application/x-www-form-urlencoded', `grant_type=client_credentials&padding=${'x'.repeat(9000)}`],
        ['application/json', JSON.stringify({ token: 'x'.repeat(9000) })],
      ] as const) {
        const response = await test.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: { 'content-type': contentType }, payload });
        expect(response.statusCode, `${path} ${contentType}`).toBe(413);
        expect(response.json<{ detail: string }>().detail).toContain('8192 bytes');
      }
    }
  });

  it('runs the full flow: register → token → call → introspect → revoke → 401', async () => {
    const { cert, clientId } = await registerClient(test, tenant);
    const issued = await requestToken(test, clientId, cert);
    expect(issued.statusCode).toBe(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    const token = issued.json<{ access_token: string; token_type: string; expires_in: number; scope: string; cnf: Record<string, string> }>();
    expect(token).toEqual({
      access_token: expect.stringMatching(/^svc_at_[0-9a-f]{64}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'verifications webhooks evidence reports',
      cnf: { 'x5t#S256': cert.der.length > 0 ? Buffer.from(cert.thumbprint, 'hex').toString('base64url') : '' },
    });
    expect(token.cnf['x5t#S256']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const headers = { authorization: `Bearer ${token.access_token}`, ...certificateHeader(cert) };
    expect((await listClients(headers)).statusCode).toBe(200);

    const active = await introspect(certificateHeader(cert), { token: token.access_token });
    expect(active.statusCode).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    expect(active.json()).toEqual({
      active: true,
      client_id: clientId,
      scope: token.scope,
      tenant_id: tenant.tenantId,
      iat: expect.any(Number),
      exp: expect.any(Number),
      token_type: 'Bearer',
      cnf: token.cnf,
    });
    expect(active.json<{ exp: number; iat: number }>().exp - active.json<{ iat: number }>().iat).toBe(3600);
    expect(Math.abs(active.json<{ iat: number }>().iat - now)).toBeLessThan(5);

    const revoked = await revoke({ ...certificateHeader(cert), ...form }, new URLSearchParams({ token: token.access_token }).toString());
    expect(revoked.statusCode).toBe(200);
    const after = await listClients(headers);
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await introspect(certificateHeader(cert), { token: token.access_token })).json()).toEqual({ active: false });
  });

  it('stores the token only as a hash', async () => {
    const { token } = await clientWithToken(test, tenant);
    const rows = await test.dependencies.database.rows<{ n: number }>(sql`select count(*)::int as n from identity.access_tokens where token_hash = ${token} or token_hash like ${`%${token.slice(7, 30)}%`}`);
    expect(rows[0]?.n).toBe(0);
  });

  it('rejects a token presented with another certificate, or with none, with 401', async () => {
    const { token, cert } = await clientWithToken(test, tenant);
    const other = await makeCertificate();
    const wrong = await listClients({ authorization: `Bearer ${token}`, ...certificateHeader(other) });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail: expect.stringMatching(/bound to a client certificate/) });
    expect((await listClients({ authorization: `Bearer ${token}` })).statusCode).toBe(401);
    expect((await listClients({ authorization: `Bearer ${token}`, ...certificateHeader(cert) })).statusCode).toBe(200);
  });

  it('ignores a certificate header from an address that is not a trusted proxy (no spoofing)', async () => {
    const { token, cert } = await clientWithToken(test, tenant);
    const spoofed = await listClients({ authorization: `Bearer ${token}`, ...certificateHeader(cert) }, '203.0.113.7');
    expect(spoofed.statusCode).toBe(401);
    const { clientId, cert: otherCert } = await registerClient(test, tenant);
    const tokenSpoofed = await test.app.inject({
      method: 'POST',
      url: `${BASE}/oauth/token`,
      remoteAddress: '203.0.113.7',
      headers: { ...form, ...certificateHeader(otherCert) },
      payload: `grant_type=client_credentials&client_id=${clientId}`,
    });
    expect(tokenSpoofed.statusCode).toBe(401);
    expect(tokenSpoofed.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('accepts the certificate from a trusted proxy as a thumbprint (any case, colons), RFC 9440 Client-Cert or nginx escaped PEM', async () => {
    const { clientId, cert } = await registerClient(test, tenant);
    const colonUpper = cert.thumbprint.toUpperCase().match(/../g)!.join(':');
    const variants: Record<string, string>[] = [
      { 'x-client-cert-thumbprint': colonUpper },
      { 'client-cert': `:${cert.der.toString('base64')}:` },
      { 'x-client-cert': encodeURIComponent(cert.certPem) },
      { 'x-client-cert': encodeURIComponent(cert.certPem), 'x-client-cert-thumbprint': cert.thumbprint },
    ];
    for (const headers of variants) {
      const response = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/token`, headers: { ...form, ...headers }, payload: `grant_type=client_credentials&client_id=${clientId}` });
      expect(response.statusCode, JSON.stringify(Object.keys(headers))).toBe(200);
    }
    const other = await makeCertificate();
    const disagreeing = await test.app.inject({
      method: 'POST',
      url: `${BASE}/oauth/token`,
      headers: { ...form, 'x-client-cert': encodeURIComponent(cert.certPem), 'x-client-cert-thumbprint': other.thumbprint },
      payload: `grant_type=client_credentials&client_id=${clientId}`,
    });
    expect(disagreeing.statusCode).toBe(401);
  });

  it('answers token-endpoint mistakes in OAuth form (error, error_description) that is also a problem document', async () => {
    const { clientId, cert } = await registerClient(test, tenant);
    const cases: [string, Record<string, string>, number, string][] = [
      ['grant_type=password&client_id=' + clientId, { ...form, ...certificateHeader(cert) }, 400, 'unsupported_grant_type'],
      ['client_id=' + clientId, { ...form, ...certificateHeader(cert) }, 400, 'invalid_request'],
      ['grant_type=client_credentials', { ...form, ...certificateHeader(cert) }, 400, 'invalid_request'],
      [`grant_type=client_credentials&client_id=${clientId}&client_id=${clientId}`, { ...form, ...certificateHeader(cert) }, 400, 'invalid_request'],
      ['grant_type=client_credentials&client_id=svc_00000000000000000000000000000000', { ...form, ...certificateHeader(cert) }, 401, 'invalid_client'],
      [`grant_type=client_credentials&client_id=${clientId}`, form, 401, 'invalid_client'],
      [`grant_type=client_credentials&client_id=${clientId}&scope=admin`, { ...form, ...certificateHeader(cert) }, 400, 'invalid_scope'],
    ];
    for (const [payload, headers, status, error] of cases) {
      const response = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/token`, headers, payload });
      expect(response.statusCode, payload).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json(), payload).toMatchObject({ error, error_description: expect.any(String), status, code: error.toUpperCase(), type: expect.any(String), title: expect.any(String) });
    }
    const json = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/token`, headers: certificateHeader(cert), payload: { grant_type: 'client_credentials', client_id: clientId } });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('issues a narrower scope on request, refuses one beyond the client’s allowed scopes, and enforces scopes per path', async () => {
    const { clientId, cert } = await registerClient(test, tenant, undefined, 'verifications reports');
    const narrowed = await requestToken(test, clientId, cert, { scope: 'reports' });
    expect(narrowed.json()).toMatchObject({ scope: 'reports' });
    const beyond = await requestToken(test, clientId, cert, { scope: 'reports webhooks' });
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json()).toMatchObject({ error: 'invalid_scope', error_description: expect.stringMatching(/webhooks/) });
    const headers = { authorization: `Bearer ${narrowed.json<{ access_token: string }>().access_token}`, ...certificateHeader(cert) };
    const lacking = await test.app.inject({ method: 'GET', url: `${BASE}/verifications`, headers });
    expect(lacking.statusCode).toBe(403);
    expect(lacking.json()).toMatchObject({ code: 'FORBIDDEN', detail: expect.stringMatching(/"verifications"/) });
    for (const path of ['/webhooks', '/webhooks/x', '/evidence/abc']) {
      expect((await test.app.inject({ method: 'GET', url: `${BASE}${path}`, headers })).statusCode, path).toBe(403);
    }
    // Holding the scope is enough.
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/reports/summary`, headers })).statusCode).toBe(200);
    // Percent-encoding the path does not dodge the scope check.
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/%76erifications`, headers })).statusCode).toBe(403);
    // Without a token, no route under the base path says whether it exists.
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/no-such-route` })).statusCode).toBe(401);
  });

  it('revoking a client revokes its tokens at once: 403 for the revoked client, and the token endpoint refuses it', async () => {
    const { id, clientId, cert, headers } = await clientWithToken(test, tenant);
    expect((await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${id}`, headers: tenant.portal })).statusCode).toBe(204);
    const call = await listClients(headers);
    expect(call.statusCode).toBe(403);
    expect(call.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect((await requestToken(test, clientId, cert)).json()).toMatchObject({ error: 'invalid_client' });
    const rows = await test.dependencies.database.rows<{ open: number }>(sql`select count(*)::int as open from identity.access_tokens where client_entity_id = ${id} and revoked_at is null`);
    expect(rows[0]?.open).toBe(0);
  });

  it("keeps tenants apart: another tenant's token introspects inactive and cannot be revoked by it", async () => {
    const mine = await clientWithToken(test, tenant);
    const theirs = await clientWithToken(test, otherTenant);
    expect((await introspect(certificateHeader(theirs.cert), { token: mine.token })).json()).toEqual({ active: false });
    expect((await revoke(certificateHeader(theirs.cert), { token: mine.token })).statusCode).toBe(200);
    expect((await listClients(mine.headers)).statusCode).toBe(200);
    expect((await introspect(certificateHeader(mine.cert), { token: mine.token })).json()).toMatchObject({ active: true });
    const theirList = await listClients(theirs.headers);
    expect(theirList.json<{ id: string }[]>().map((client) => client.id)).toEqual([theirs.id]);
  });

  it('introspect and revoke need a registered client certificate (401), and a token parameter (400)', async () => {
    const { cert, token } = await clientWithToken(test, tenant);
    for (const call of [introspect, revoke]) {
      const noCert = await call({}, { token });
      expect(noCert.statusCode).toBe(401);
      expect(noCert.json()).toMatchObject({ error: 'invalid_client' });
      const unknownCert = await call(certificateHeader(await makeCertificate()), { token });
      expect(unknownCert.statusCode).toBe(401);
      const missing = await call(certificateHeader(cert), {});
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    }
    expect((await introspect(certificateHeader(cert), { token: 'svc_at_nonsense' })).json()).toEqual({ active: false });
    expect((await revoke(certificateHeader(cert), { token: 'svc_at_nonsense' })).statusCode).toBe(200);
    expect((await introspect({ ...certificateHeader(cert), ...form }, `token=${token}`)).json()).toMatchObject({ active: true });
  });

  it('refuses everything of a disabled tenant with 403 ACCOUNT_DISABLED, and enabling restores it', async () => {
    const disabled = await createLoggedInTenant(test, 'To disable');
    const { headers, cert, clientId, token } = await clientWithToken(test, disabled);
    await test.announced(() => test.db.transaction((tx) => setTenantStatus(tx, disabled.tenantId, 'disabled', new Date())));
    const call = await listClients(headers);
    expect(call.statusCode).toBe(403);
    expect(call.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
    const newToken = await requestToken(test, clientId, cert);
    expect(newToken.statusCode).toBe(403);
    expect(newToken.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
    expect((await introspect(certificateHeader(cert), { token })).statusCode).toBe(403);
    expect((await listClients(disabled.portal)).json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
    await test.announced(() => test.db.transaction((tx) => setTenantStatus(tx, disabled.tenantId, 'active', new Date())));
    expect((await listClients(headers)).statusCode).toBe(200);
  });

  it('rejects a malformed Authorization header or an unknown token with 401', async () => {
    const { cert } = await registerClient(test, tenant);
    for (const authorization of ['Basic abc', 'Bearer', `Bearer svc_at_${'0'.repeat(64)}`, 'Bearer nonsense']) {
      const response = await listClients({ authorization, ...certificateHeader(cert) });
      expect(response.statusCode, authorization).toBe(401);
      expect(response.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(response.headers['www-authenticate']).toBe('Bearer realm="identity", error="invalid_token"');
    }
    expect((await listClients({})).headers['www-authenticate']).toBe('Bearer realm="identity"');
  });
});

describe('token lifetime and client lastUsedAt', () => {
  it('expires a token after 3600 seconds, and records lastUsedAt without a write per request', async () => {
    const clock = manualClock();
    const test = await buildTestApp({}, { clock: clock.now, lastUsedFlushMs: 60_000 });
    try {
      const tenant = await createLoggedInTenant(test);
      const { headers, id } = await clientWithToken(test, tenant);
      const list = () => test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers });
      for (let index = 0; index < 5; index++) expect((await list()).statusCode).toBe(200);
      // Nothing written yet: the flush interval has not passed.
      expect((await list()).json<{ id: string; lastUsedAt: string | null }[]>().find((client) => client.id === id)?.lastUsedAt).toBeNull();
      clock.advance(3599_000);
      expect((await list()).statusCode).toBe(200);
      clock.advance(1000);
      expect((await list()).statusCode).toBe(401);
      await test.app.close();
      const rows = await test.dependencies.database.rows<{ last_used_at: Date | string }>(sql`select last_used_at from identity.oauth_clients where id = ${id}`);
      expect(new Date(rows[0]!.last_used_at).getTime()).toBe(clock.now().getTime() - 1000);
    } finally {
      await test.close();
    }
  });
});
