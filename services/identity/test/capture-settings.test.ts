import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureEmbedOriginsSchema } from '../src/domain/tenants/capture-embed.js';
import { createPortalUser } from '../src/domain/tenants/tenants.js';
import { createCase, partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, clientWithToken, PASSWORD, type TestApp } from './helpers.js';

const SETTINGS = `${BASE}/capture-settings`;

describe('captureEmbedOrigins: where the hosted capture page may be framed', () => {
  const root = mkdtempSync(join(tmpdir(), 'identity-capture-root-'));
  let test: TestApp;
  let acme: Partner;
  let globex: Partner;

  const put = (headers: Record<string, string>, payload: unknown) => test.app.inject({ method: 'PUT', url: SETTINGS, headers, payload: payload as object });
  const page = (query: string) => test.app.inject({ method: 'GET', url: `/capture${query}` });

  beforeAll(async () => {
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><html><body></body></html>');
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', CAPTURE_WEB_ROOT: root });
    acme = await partnerWithToken(test, 'Acme Bank');
    globex = await partnerWithToken(test, 'Globex');
  });
  afterAll(async () => {
    await test.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('starts empty, and is replaced as a whole through the API and the portal alike', async () => {
    const initial = await test.app.inject({ method: 'GET', url: SETTINGS, headers: acme.headers });
    expect(initial.statusCode).toBe(200);
    expect(initial.json()).toEqual({ captureEmbedOrigins: [] });

    const byToken = await put(acme.headers, { captureEmbedOrigins: ['https://Shop.Acme.example/', 'https://shop.acme.example', 'https://app.acme.example:8443'] });
    expect(byToken.statusCode).toBe(200);
    expect(byToken.json()).toEqual({ captureEmbedOrigins: ['https://shop.acme.example', 'https://app.acme.example:8443'] });
    const byPortal = await test.app.inject({ method: 'GET', url: SETTINGS, headers: acme.portal });
    expect(byPortal.json()).toEqual(byToken.json());

    expect((await put(acme.portal, { captureEmbedOrigins: ['https://shop.acme.example'] })).json()).toEqual({ captureEmbedOrigins: ['https://shop.acme.example'] });
    // Another tenant's list is its own.
    expect((await test.app.inject({ method: 'GET', url: SETTINGS, headers: globex.headers })).json()).toEqual({ captureEmbedOrigins: [] });
  });

  it('refuses anything but exact https origins with 400, and changes nothing', async () => {
    const refused = [
      ['http://shop.acme.example'],
      ['https://shop.acme.example/checkout'],
      ['https://shop.acme.example?x=1'],
      ['https://user:pw@shop.acme.example'],
      ['https://*.acme.example'],
      ['https://a;script-src.example'],
      ['https://a".example'],
      ['shop.acme.example'],
      ['javascript:alert(1)'],
      [`https://${'a'.repeat(300)}.example`],
      Array.from({ length: 21 }, (_, index) => `https://shop${index}.acme.example`),
      'https://shop.acme.example',
      [42],
    ];
    for (const captureEmbedOrigins of refused) {
      const response = await put(globex.headers, { captureEmbedOrigins });
      expect(response.statusCode, JSON.stringify(captureEmbedOrigins)).toBe(400);
      expect(response.json(), JSON.stringify(captureEmbedOrigins)).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect((await put(globex.headers, {})).statusCode).toBe(400);
    expect((await put(globex.headers, { captureEmbedOrigins: [], extra: true })).statusCode).toBe(400);
    expect((await test.app.inject({ method: 'GET', url: SETTINGS, headers: globex.headers })).json()).toEqual({ captureEmbedOrigins: [] });
  });

  it('takes http://127.0.0.1 and http://localhost origins only on the embedded default (no DATABASE_URL in the configuration)', async () => {
    const loopback = ['http://127.0.0.1:5173', 'http://localhost:8080', 'http://[::1]:3000'];
    // The test app's configuration names no DATABASE_URL, whichever database it runs on.
    expect((await put(globex.headers, { captureEmbedOrigins: loopback })).statusCode).toBe(200);
    // What a deployment with DATABASE_URL validates with.
    expect(captureEmbedOriginsSchema(false).safeParse(loopback).success).toBe(false);
    expect(captureEmbedOriginsSchema(false).safeParse(['https://localhost:8443']).success).toBe(true);
    expect((await put(globex.headers, { captureEmbedOrigins: ['http://10.0.0.5:8080'] })).statusCode).toBe(400);
    expect((await put(globex.headers, { captureEmbedOrigins: [] })).statusCode).toBe(200);
  });

  it('needs the verifications scope, and PartnerAdmin to change it from the portal', async () => {
    const webhooksOnly = await clientWithToken(test, acme, 'webhooks');
    expect((await test.app.inject({ method: 'GET', url: SETTINGS, headers: webhooksOnly.headers })).statusCode).toBe(403);
    expect((await put(webhooksOnly.headers, { captureEmbedOrigins: [] })).statusCode).toBe(403);
    expect((await test.app.inject({ method: 'GET', url: SETTINGS })).statusCode).toBe(401);

    const email = `support-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createPortalUser(tx, { tenantId: acme.tenantId, email, password: PASSWORD, role: 'PartnerReadOnly' }, new Date()));
    const login = await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email, password: PASSWORD } });
    const support = { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` };
    expect((await test.app.inject({ method: 'GET', url: SETTINGS, headers: support })).statusCode).toBe(200);
    expect((await put(support, { captureEmbedOrigins: [] })).statusCode).toBe(403);
  });

  it("frames the capture page of a case only for its tenant's origins, with the camera for them alone", async () => {
    await put(acme.headers, { captureEmbedOrigins: ['https://shop.acme.example', 'https://app.acme.example:8443'] });
    const acmeCase = (await createCase(test, acme)).json<{ caseId: string; captureUrl: string }>();
    const globexCase = (await createCase(test, globex)).json<{ caseId: string }>();

    const framed = await page(new URL(acmeCase.captureUrl).search);
    expect(framed.statusCode).toBe(200);
    const csp = String(framed.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'self' https://shop.acme.example https://app.acme.example:8443");
    expect(csp).toContain("script-src 'self'");
    expect(framed.headers['x-frame-options']).toBeUndefined();
    expect(framed.headers['permissions-policy']).toBe('camera=(self "https://shop.acme.example" "https://app.acme.example:8443"), microphone=()');

    // No case, another tenant's case (empty list), an unknown or malformed id: never framed, as before.
    for (const query of ['', `?case=${globexCase.caseId}`, `?case=${randomUUID()}`, '?case=not-a-uuid', `?case=${acmeCase.caseId}&case=${globexCase.caseId}`]) {
      const response = await page(query);
      expect(response.statusCode, query).toBe(200);
      expect(String(response.headers['content-security-policy']), query).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options'], query).toBe('DENY');
      expect(response.headers['permissions-policy'], query).toBe('camera=(self), microphone=()');
    }
  });
});
