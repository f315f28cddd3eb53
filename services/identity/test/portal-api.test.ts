import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate } from './certificates.js';
import { createCase, partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

describe("the portal's own API: case search, case history, certificate inspection", () => {
  let test: TestApp;
  let acme: Partner;

  beforeAll(async () => {
    test = await buildTestApp();
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test.close());

  const search = async (text: string, extra = '') => test.app.inject({ method: 'GET', url: `${BASE}/verifications?search=${encodeURIComponent(text)}${extra}`, headers: acme.portal });
  const references = async (text: string, extra = '') => (await search(text, extra)).json<{ items: { externalReference: string | null }[] }>().items.map((item) => item.externalReference).sort();

  it('finds cases by the start of their external reference, case-insensitively, or by exact id', async () => {
    const ids: Record<string, string> = {};
    for (const reference of ['Order-100', 'order-101', 'Other-5', '50%_off', '50-more', 'back\\slash']) {
      ids[reference] = (await createCase(test, acme, { documentType: 'SyrianPassport', externalReference: reference })).json<{ caseId: string }>().caseId;
    }
    expect(await references('order-10')).toEqual(['Order-100', 'order-101']);
    expect(await references('ORDER-101')).toEqual(['order-101']);
    expect(await references('50%')).toEqual(['50%_off']);
    expect(await references('50_')).toEqual([]);
    expect(await references('back\\')).toEqual(['back\\slash']);
    expect(await references(ids['Other-5']!)).toEqual(['Other-5']);
    expect(await references(ids['Other-5']!.toUpperCase())).toEqual(['Other-5']);
    expect(await references('order', '&status=Cancelled')).toEqual([]);
    expect(await references('order', '&status=SessionIssued')).toEqual(['Order-100', 'order-101']);
    const paged = (await search('order', '&pageSize=1&page=2')).json<{ items: unknown[]; totalCount: number }>();
    expect(paged).toMatchObject({ totalCount: 2 });
    expect(paged.items).toHaveLength(1);
  });

  it('refuses an empty or over-long search', async () => {
    for (const text of ['', '   ', 'x'.repeat(201)]) {
      const response = await search(text);
      expect(response.statusCode, JSON.stringify(text)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it("tells a case's timeline from the audit trail, oldest first", async () => {
    const { caseId } = (await createCase(test, acme, { documentType: 'SyrianPassport', externalReference: 'timeline' })).json<{ caseId: string }>();
    await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${caseId}/cancel`, headers: acme.headers, payload: { reason: 'customer withdrew' } });
    const response = await test.app.inject({ method: 'GET', url: `${BASE}/verifications/${caseId}/history`, headers: acme.headers });
    expect(response.statusCode).toBe(200);
    const { data } = response.json<{ data: { at: string; action: string; actor: string; fromStatus: string | null; toStatus: string | null; detail: Record<string, unknown> | null }[] }>();
    expect(data[0]).toMatchObject({ action: 'verification.created', actor: `client:${acme.clientId}` });
    expect(data.at(-1)).toMatchObject({ action: 'verification.cancel', fromStatus: 'SessionIssued', toStatus: 'Cancelled', detail: { reason: 'customer withdrew' } });
    const times = data.map((entry) => Date.parse(entry.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('answers 400 for a case id that is not a UUID and 404 for an unknown one', async () => {
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications/nope/history`, headers: acme.portal })).statusCode).toBe(400);
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications/00000000-0000-4000-8000-000000000000/history`, headers: acme.portal })).statusCode).toBe(404);
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications/00000000-0000-4000-8000-000000000000/history` })).statusCode).toBe(401);
  });

  it('shows the details registration would extract, and stores nothing', async () => {
    const certificate = await makeCertificate({ cn: 'inspect-me' });
    const clientsBefore = (await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: acme.portal })).json<unknown[]>().length;
    const response = await test.app.inject({ method: 'POST', url: `${BASE}/portal/certificates/inspect`, headers: acme.portal, payload: { certificatePem: certificate.certPem } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ certificateThumbprint: certificate.thumbprint, certificateSubjectDN: 'CN=inspect-me,O=Test Partner,C=SY' });
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: acme.portal })).json<unknown[]>()).toHaveLength(clientsBefore);
  });

  it('refuses what registration would refuse, with the same reasons', async () => {
    const certificate = await makeCertificate();
    const expired = await makeCertificate({ notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    const cases = [
      { certificatePem: 'hello', detail: 'PEM' },
      { certificatePem: `${certificate.certPem}${certificate.keyPem}`, detail: 'private key' },
      { certificatePem: `${certificate.certPem}${expired.certPem}`, detail: 'exactly one certificate' },
      { certificatePem: expired.certPem, detail: 'expired' },
    ];
    for (const { certificatePem, detail } of cases) {
      const response = await test.app.inject({ method: 'POST', url: `${BASE}/portal/certificates/inspect`, headers: acme.portal, payload: { certificatePem } });
      expect(response.statusCode, detail).toBe(400);
      expect(response.json<{ detail: string }>().detail, detail).toContain(detail);
    }
    for (const payload of [{}, { certificatePem: '' }, { certificatePem: 'x'.repeat(20_001) }, { certificatePem: certificate.certPem, extra: 1 }]) {
      expect((await test.app.inject({ method: 'POST', url: `${BASE}/portal/certificates/inspect`, headers: acme.portal, payload })).statusCode).toBe(400);
    }
    expect((await test.app.inject({ method: 'POST', url: `${BASE}/portal/certificates/inspect`, headers: acme.headers, payload: { certificatePem: certificate.certPem } })).statusCode).toBe(403);
    expect((await test.app.inject({ method: 'POST', url: `${BASE}/portal/certificates/inspect`, payload: { certificatePem: certificate.certPem } })).statusCode).toBe(401);
  });
});

describe('the portal page', () => {
  const root = mkdtempSync(join(tmpdir(), 'identity-portal-root-'));
  let built: TestApp;
  let unbuilt: TestApp;

  beforeAll(async () => {
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><html lang="en"><head><script type="module" src="/portal/assets/app-abc123.js"></script></head><body></body></html>');
    writeFileSync(join(root, 'assets', 'app-abc123.js'), 'console.log("portal")');
    built = await buildTestApp({ PORTAL_WEB_ROOT: root });
    unbuilt = await buildTestApp({ PORTAL_WEB_ROOT: join(root, 'missing') });
  });
  afterAll(async () => {
    await built.close();
    await unbuilt.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves the app at /portal and every path below it, under a strict CSP', async () => {
    for (const url of ['/portal', '/portal/', '/portal/cases/00000000-0000-4000-8000-000000000000', '/portal/sign-in?next=%2Fportal%2Fclients']) {
      const response = await built.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers['cache-control']).toBe('no-cache');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
    }
  });

  it('serves hashed assets as immutable, and 404 for unknown ones', async () => {
    const asset = await built.app.inject({ method: 'GET', url: '/portal/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await built.app.inject({ method: 'GET', url: '/portal/assets/nope.js' })).statusCode).toBe(404);
  });

  it('answers 503 naming the build command when the portal was not built, while the API works', async () => {
    const response = await unbuilt.app.inject({ method: 'GET', url: '/portal' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'WEB_PAGE_NOT_BUILT', detail: expect.stringContaining('pnpm build') });
    expect((await unbuilt.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});
