/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import {
  API,
  buildPortal,
  createTenant,
  launchChromium,
  openPage,
  portalSessionToken,
  removeQuietly,
  signIn,
  startIdentity,
  type IdentityService,
  type TenantAdmin,
  type WatchedPage,
} from './portal-fixture.js';

// A loopback target (allowed by the fixture's WEBHOOK_ALLOW_PRIVATE_TARGETS): this machine resolves no public name.
const WEBHOOK = { url: 'https://127.0.0.1:9/identity', eventTypes: ['verification.approved'] };

/** The page another site would serve: it tries a cookie-authenticated write against identity. */
function attackerPage(target: string): string {
  return `<!doctype html><html><body>
<form id="attack" method="POST" action="${target}${API}/webhooks" enctype="application/x-www-form-urlencoded">
  <input name="url" value="${WEBHOOK.url}"><input name="eventTypes" value="verification.approved">
</form>
<script>
  fetch(${JSON.stringify(`${target}${API}/webhooks`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(JSON.stringify(WEBHOOK))} })
    .finally(() => document.getElementById('attack').submit());
</script></body></html>`;
}

describeEmbeddedOnly('partner portal: CSP, CSRF and the session cookie in Chromium', () => {
  let webRoot = '';
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;
  let attacker: Server;
  let attackerUrl = '';
  const opened: WatchedPage[] = [];

  async function webhookCount(): Promise<number> {
    const session = await portalSessionToken(service.baseUrl, admin.email);
    const response = await fetch(`${service.baseUrl}${API}/webhooks`, { headers: { authorization: `Bearer ${session}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as unknown[]).length;
  }

  beforeAll(async () => {
    webRoot = buildPortal();
    service = await startIdentity(webRoot);
    admin = await createTenant(service, { sandbox: true });
    browser = await launchChromium();
    attacker = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage(service.baseUrl)));
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  }, 240_000);

  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await service?.stop();
    if (service) removeQuietly(service.dataDir);
    removeQuietly(webRoot);
  });

  it('serves /portal with a strict CSP: no inline script or style, nothing from another origin', async () => {
    for (const path of ['/portal', '/portal/cases/00000000-0000-4000-8000-000000000000', '/portal/sign-in']) {
      const response = await fetch(`${service.baseUrl}${path}`);
      expect(response.status).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      const directives = new Map(csp.split(';').map((directive) => directive.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
      expect(directives.get('script-src')).toEqual(["'self'"]);
      expect(directives.get('style-src')).toEqual(["'self'"]);
      expect(directives.get('object-src')).toEqual(["'none'"]);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      const html = await response.text();
      // Every script and stylesheet is a file below /portal/assets/; no inline element or attribute.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/<style[\s>]/);
      expect(html).not.toMatch(/\sstyle=/);
      expect(html).toMatch(/<script type="module" crossorigin src="\/portal\/assets\/index-[\w-]+\.js"><\/script>/);
    }
  });

  it('walks every screen without a CSP violation or console error, and no credential is readable by the page', async () => {
    const watched = await openPage(browser, { width: 1280 });
    opened.push(watched);
    const { page } = watched;
    await signIn(page, service.baseUrl, admin.email);
    for (const section of ['OAuth clients', 'Webhooks', 'Reports', 'Team', 'Cases']) {
      await page.locator('nav.sections').getByRole('link', { name: section }).click();
      await page.locator('nav.sections a[aria-current=page]', { hasText: section }).waitFor();
      await page.locator('main#main > *').first().waitFor();
    }
    await page.getByRole('button', { name: 'العربية' }).click();
    await page.locator('nav.sections').getByRole('link', { name: 'عملاء OAuth' }).click();
    await page.getByTestId('client-count').waitFor();
    // The session cookie is HttpOnly and nothing else holds a token: a script on the page finds none.
    const readable = await page.evaluate(() => ({ cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage } }));
    expect(readable).toEqual({ cookie: '', local: { 'portal.language': 'ar' }, session: {} });
    const cookies = await watched.context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'svc_portal_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/partner/v1' });
    expect(await watched.problems()).toEqual([]);
  });

  it('refuses a cookie-authenticated write from another origin, with the cookie and an evil Origin', async () => {
    const session = await portalSessionToken(service.baseUrl, admin.email);
    const cookie = `svc_portal_session=${session}`;
    const post = (headers: Record<string, string>) =>
      fetch(`${service.baseUrl}${API}/webhooks`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify(WEBHOOK) });

    const evil = await post({ origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'CSRF_REJECTED' });
    // Without Origin, a cookie write must at least be marked same-origin by the browser.
    const bare = await post({});
    expect(bare.status).toBe(403);
    expect(await bare.json()).toMatchObject({ code: 'CSRF_REJECTED' });
    expect(await webhookCount()).toBe(0);
    // The same request from the portal's own origin is accepted: the check is the Origin, not the cookie.
    const own = await post({ origin: service.baseUrl });
    expect({ status: own.status, body: (await own.json()) as unknown }).toMatchObject({ status: 201 });
    expect(await webhookCount()).toBe(1);
  });

  it('refuses the writes a page on another port of the same host sends with the signed-in browser\'s cookie', async () => {
    // 127.0.0.1 on another port is the same site, so SameSite=Strict still sends the cookie: only the Origin check stands.
    const watched = await openPage(browser, { width: 1280, ignoreConsole: /status of 403/ });
    opened.push(watched);
    const { page } = watched;
    await signIn(page, service.baseUrl, admin.email);
    const before = await webhookCount();
    const refused: { status: number; code: unknown }[] = [];
    page.on('response', (response) => {
      if (response.url() === `${service.baseUrl}${API}/webhooks` && response.request().method() === 'POST') {
        void response.json().then(
          (body: { code?: unknown }) => refused.push({ status: response.status(), code: body.code }),
          () => refused.push({ status: response.status(), code: undefined }),
        );
      }
    });
    await page.goto(attackerUrl);
    await expect.poll(() => refused.length, { timeout: 10_000 }).toBe(2);
    // The form's answer is readable here; the no-cors fetch's body is opaque even to the test.
    expect(refused.map((answer) => answer.status)).toEqual([403, 403]);
    expect(refused.map((answer) => answer.code)).toContain('CSRF_REJECTED');
    expect(await webhookCount()).toBe(before);
  });
});
