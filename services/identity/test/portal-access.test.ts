import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPortalUser } from '../src/domain/tenants/tenants.js';
import { CAPTURE, createCase, partnerWithToken, uploadPassportEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, createLoggedInTenant, PASSWORD, type TestApp } from './helpers.js';

/**
 * The portal reaches the partner areas with its session: any role reads, PartnerAdmin writes,
 * and a write carried by the cookie alone must come from this service's own origin.
 */
describe('portal sessions on the partner API', () => {
  let test: TestApp;
  let acme: Partner;
  let readOnly: { token: string; userId: string };
  // app.inject sends Host: localhost:80; a browser on that origin sends this Origin.
  const OWN_ORIGIN = 'http://localhost';
  const cookie = (token: string) => ({ cookie: `svc_portal_session=${token}` });

  beforeAll(async () => {
    test = await buildTestApp({ PUBLIC_BASE_URL: 'https://identity.example.com' });
    acme = await partnerWithToken(test, 'Acme');
    const email = `support-${randomUUID()}@example.com`;
    const { userId } = await test.db.transaction((tx) => createPortalUser(tx, { tenantId: acme.tenantId, email, password: PASSWORD, role: 'PartnerReadOnly' }, new Date()));
    const login = await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email, password: PASSWORD } });
    readOnly = { token: login.json<{ sessionToken: string }>().sessionToken, userId };
  });
  afterAll(() => test.close());

  const countCases = async () => (await test.app.inject({ method: 'GET', url: `${BASE}/verifications`, headers: acme.portal })).json<{ totalCount: number }>().totalCount;

  it('says who is signed in, with the tenant and its sandbox flag', async () => {
    const sandbox = await createLoggedInTenant(test, 'Sandbox Co', { sandbox: true });
    for (const headers of [sandbox.portal, cookie(sandbox.sessionToken)]) {
      const response = await test.app.inject({ method: 'GET', url: `${BASE}/portal/session`, headers });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toMatchObject({ user: { id: sandbox.adminUserId, email: sandbox.email, role: 'PartnerAdmin' }, tenant: { id: sandbox.tenantId, name: 'Sandbox Co', sandbox: true } });
    }
    const support = await test.app.inject({ method: 'GET', url: `${BASE}/portal/session`, headers: { authorization: `Bearer ${readOnly.token}` } });
    expect(support.json()).toMatchObject({ user: { role: 'PartnerReadOnly' }, tenant: { sandbox: false } });
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/portal/session` })).statusCode).toBe(401);
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/portal/session`, headers: acme.headers })).statusCode).toBe(403);
  });

  it('lets every portal role read the partner areas of its own tenant', async () => {
    const created = await createCase(test, acme, { documentType: 'SyrianPassport', externalReference: 'read-me' });
    const { caseId } = created.json<{ caseId: string }>();
    for (const headers of [acme.portal, { authorization: `Bearer ${readOnly.token}` }, cookie(readOnly.token)]) {
      for (const url of [`${BASE}/verifications`, `${BASE}/verifications/${caseId}`, `${BASE}/verifications/${caseId}/history`, `${BASE}/webhooks`, `${BASE}/reports/summary`, `${BASE}/oauth/clients`]) {
        const response = await test.app.inject({ method: 'GET', url, headers });
        expect(response.statusCode, url).toBe(200);
      }
    }
  });

  it('refuses every write to the read-only role, and changes nothing', async () => {
    const { caseId } = (await createCase(test, acme)).json<{ caseId: string }>();
    const before = await countCases();
    const headers = { ...cookie(readOnly.token), origin: OWN_ORIGIN };
    const writes = [
      { method: 'POST' as const, url: `${BASE}/verifications`, payload: { documentType: 'SyrianPassport' } },
      { method: 'POST' as const, url: `${BASE}/verifications/${caseId}/cancel`, payload: { reason: 'support staff' } },
      { method: 'PATCH' as const, url: `${BASE}/verifications/${caseId}/ocr-fields`, payload: { fields: { surname: 'X' } } },
      { method: 'POST' as const, url: `${BASE}/webhooks`, payload: { url: 'https://example.com/hook', eventTypes: ['verification.approved'] } },
      { method: 'DELETE' as const, url: `${BASE}/oauth/clients/${acme.id}` },
      { method: 'POST' as const, url: `${BASE}/portal/certificates/inspect`, payload: { certificatePem: 'x' } },
    ];
    for (const write of writes) {
      const response = await test.app.inject({ ...write, headers });
      expect(response.statusCode, `${write.method} ${write.url}`).toBe(403);
      expect(response.json<{ detail: string }>().detail, write.url).toContain('PartnerAdmin');
    }
    expect(await countCases()).toBe(before);
    const detail = await test.app.inject({ method: 'GET', url: `${BASE}/verifications/${caseId}`, headers: acme.portal });
    expect(detail.json()).toMatchObject({ status: 'SessionIssued' });
  });

  it('lets a PartnerAdmin write through the portal, audited as the portal user', async () => {
    const created = await test.app.inject({ method: 'POST', url: `${BASE}/verifications`, headers: { ...cookie(acme.sessionToken), origin: OWN_ORIGIN }, payload: { documentType: 'SyrianNationalId', externalReference: 'from-portal' } });
    expect(created.statusCode).toBe(201);
    const { caseId } = created.json<{ caseId: string }>();
    const cancelled = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${caseId}/cancel`, headers: { ...cookie(acme.sessionToken), origin: OWN_ORIGIN }, payload: { reason: 'duplicate request' } });
    expect(cancelled.statusCode).toBe(204);
    const history = (await test.app.inject({ method: 'GET', url: `${BASE}/verifications/${caseId}/history`, headers: acme.portal })).json<{ data: { action: string; actor: string; toStatus: string | null; detail: Record<string, unknown> | null }[] }>();
    expect(history.data.map((entry) => entry.actor)).toEqual(expect.arrayContaining([`user:${acme.adminUserId}`]));
    expect(history.data.at(-1)).toMatchObject({ action: 'verification.cancel', actor: `user:${acme.adminUserId}`, toStatus: 'Cancelled', detail: { reason: 'duplicate request' } });
  });

  describe('CSRF: cookie-authenticated writes from elsewhere', () => {
    const write = (headers: Record<string, string>) =>
      test.app.inject({ method: 'POST', url: `${BASE}/verifications`, headers: { ...cookie(acme.sessionToken), ...headers }, payload: { documentType: 'SyrianPassport' } });

    it('refuses a foreign, opaque or missing Origin before doing anything', async () => {
      const before = await countCases();
      const refused: Record<string, string>[] = [{ origin: 'http://evil.example' }, { origin: 'null' }, { origin: 'http://localhost:8080' }, { origin: 'https://localhost' }, {}, { 'sec-fetch-site': 'cross-site' }];
      for (const headers of refused) {
        const response = await write(headers);
        expect(response.statusCode, JSON.stringify(headers)).toBe(403);
        expect(response.json(), JSON.stringify(headers)).toMatchObject({ code: 'CSRF_REJECTED' });
      }
      expect(await countCases()).toBe(before);
    });

    it('accepts its own origin, the public base URL, and Sec-Fetch-Site same-origin', async () => {
      const accepted: Record<string, string>[] = [{ origin: OWN_ORIGIN }, { origin: 'http://localhost:80' }, { origin: 'https://identity.example.com' }, { 'sec-fetch-site': 'same-origin' }];
      for (const headers of accepted) {
        expect((await write(headers)).statusCode, JSON.stringify(headers)).toBe(201);
      }
    });

    it('does not apply to reads, nor to the session sent as a bearer header (no browser sends that by itself)', async () => {
      expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications`, headers: { ...cookie(acme.sessionToken), origin: 'http://evil.example' } })).statusCode).toBe(200);
      const bearer = await test.app.inject({ method: 'POST', url: `${BASE}/verifications`, headers: acme.portal, payload: { documentType: 'SyrianPassport' } });
      expect(bearer.statusCode).toBe(201);
    });

    it("refuses a browser login posted from another site (login CSRF), not an API client's", async () => {
      const email = `csrf-${randomUUID()}@example.com`;
      await test.db.transaction((tx) => createPortalUser(tx, { tenantId: acme.tenantId, email, password: PASSWORD, role: 'PartnerAdmin' }, new Date()));
      const foreign = await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, headers: { origin: 'http://evil.example' }, payload: { email, password: PASSWORD } });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.headers['set-cookie']).toBeUndefined();
      expect((await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, headers: { origin: OWN_ORIGIN }, payload: { email, password: PASSWORD } })).statusCode).toBe(200);
      expect((await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email, password: PASSWORD } })).statusCode).toBe(200);
    });
  });

  it("never shows one tenant's cases, history or evidence to another tenant's portal", async () => {
    const created = (await createCase(test, acme)).json<{ caseId: string; sessionToken: string }>();
    const exchanged = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${created.sessionToken}` } });
    const captureToken = exchanged.json<{ captureToken: string }>().captureToken;
    await uploadPassportEvidence(test, captureToken);
    const detail = (await test.app.inject({ method: 'GET', url: `${BASE}/verifications/${created.caseId}`, headers: acme.portal })).json<{ documentEvidence: { id: string }[] }>();
    const evidenceId = detail.documentEvidence[0]!.id;
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${evidenceId}/file`, headers: cookie(readOnly.token) })).statusCode).toBe(200);
    const other = await createLoggedInTenant(test, 'Other');
    for (const url of [`${BASE}/verifications/${created.caseId}`, `${BASE}/verifications/${created.caseId}/history`]) {
      expect((await test.app.inject({ method: 'GET', url, headers: other.portal })).statusCode, url).toBe(404);
    }
    // The spec's answer for another tenant's evidence is 403, unlike cases.
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${evidenceId}/file`, headers: other.portal })).statusCode).toBe(403);
    const cancel = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${created.caseId}/cancel`, headers: other.portal, payload: { reason: 'not mine' } });
    expect(cancel.statusCode).toBe(404);
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications`, headers: other.portal })).json()).toMatchObject({ totalCount: 0 });
  });
});
