import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { describeEmbeddedOnly } from '@svc/db/testing';
import type { CaptureEvent } from '@svc/capture-embed';
import { buildCapturePage, cameraFeeds, captureMedia, captureScreenshot, fakeCameraArgs, type CaptureMedia } from './capture-fixture.js';
import { buildPortal, createTenant, launchChromium, openPage, partnerApi, removeQuietly, signIn, startIdentity, tearDownPortalTest, type IdentityService, type PartnerApi, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

/** @svc/capture-embed compiled from its source, as a partner's bundler would ship it. */
function embedScript(): string {
  const source = readFileSync(new URL('../../../../packages/capture-embed/src/index.ts', import.meta.url), 'utf8');
  return ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
}

/**
 * The partner's site: a page that loads capture-embed and records its events, and a page that
 * forges capture events from its own origin. Served on a second loopback port, so the partner's
 * origin is http://localhost:<port> (listed by the tenant) or http://127.0.0.1:<port> (not listed).
 */
async function startPartnerSite(): Promise<{ port: number; close: () => Promise<void> }> {
  const script = embedScript();
  const partnerPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Partner Bank: open an account</title></head>
<body style="margin:0;font-family:sans-serif;background:#eef2f6"><h1 style="margin:16px">Partner Bank: verify your identity</h1>
<div id="slot" style="height:760px;margin:0 16px;background:#fff"></div>
<script type="module">
import { openCapture } from '/capture-embed.js';
window.events = [];
window.forgeries = [];
window.addEventListener('message', (message) => { if (message.data && message.data.forgery) window.forgeries.push(message.data.forgery); });
window.startCapture = (url) => { window.handle = openCapture({ url, container: document.getElementById('slot'), onEvent: (event) => window.events.push(event) }); };
window.addForger = (src) => { const frame = document.createElement('iframe'); frame.src = src; frame.style.display = 'none'; document.body.appendChild(frame); };
</script></body></html>`;
  // Events in the capture page's own shape, from a frame that is not the capture page: each is followed by a marker, so the test knows they were delivered.
  const forger = `<!doctype html><script>
for (const data of [{ source: 'svc-capture', type: 'submitted', caseId: 'forged' }, { source: 'svc-capture', type: 'error', code: 'FORGED' }]) parent.postMessage(data, '*');
parent.postMessage({ forgery: 'sent' }, '*');
</script>`;
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://partner').pathname;
    const body = path === '/' ? partnerPage : path === '/capture-embed.js' ? script : path === '/forger' ? forger : null;
    if (body === null) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': path.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// capture-embed in a partner's page on another origin, the capture page inside it filming with
// Chromium's fake camera; identity is a process on the embedded default, so the tenant may list
// http://localhost origins (https only otherwise).
describeEmbeddedOnly('the capture flow inside a partner page (capture-embed, Chromium fake camera)', () => {
  let webRoot = '';
  let portalRoot = '';
  let admin: TenantAdmin;
  let service: IdentityService;
  let partner: PartnerApi;
  let site: Awaited<ReturnType<typeof startPartnerSite>>;
  let media: CaptureMedia;
  let browser: Browser;
  const opened: WatchedPage[] = [];

  async function partnerPage(origin: string, ignoreConsole?: RegExp): Promise<Page> {
    const watched = await openPage(browser, { width: 1100, height: 900, locale: 'en', ...(ignoreConsole ? { ignoreConsole } : {}) });
    opened.push(watched);
    await watched.page.goto(`${origin}/`);
    await watched.page.waitForFunction(() => typeof (window as unknown as { startCapture?: unknown }).startCapture === 'function');
    return watched.page;
  }

  const events = (page: Page) => page.evaluate(() => (window as unknown as { events: CaptureEvent[] }).events);
  const eventTypes = async (page: Page) => (await events(page)).map((event) => (event.type === 'step' ? `step:${event.name}` : event.type));

  async function captureFrame(page: Page): Promise<Frame> {
    const handle = await page.waitForSelector('#slot iframe');
    await expect.poll(async () => (await handle.contentFrame())?.url() ?? '').toContain('/capture');
    return (await handle.contentFrame())!;
  }

  beforeAll(async () => {
    webRoot = buildCapturePage();
    portalRoot = buildPortal();
    media = await captureMedia();
    const feeds = cameraFeeds(media);
    [service, site] = await Promise.all([startIdentity(portalRoot, { CAPTURE_WEB_ROOT: webRoot }), startPartnerSite()]);
    admin = await createTenant(service, { sandbox: true, name: 'Sandbox Bank' });
    partner = await partnerApi(service.baseUrl, admin);
    // The face serves every step: a sandbox case is decided by the simulator, so only the page and the messages are under test.
    browser = await launchChromium(fakeCameraArgs(feeds.face));
  }, 240_000);

  afterAll(async () => {
    await tearDownPortalTest({ opened, browser, service, webRoot });
    await site?.close();
    if (media) removeQuietly(media.dir);
    if (portalRoot) removeQuietly(portalRoot);
  });

  it('the admin lists the partner origin in the portal; a sandbox case completes inside that partner page, which hears every step, then submitted with the case id, and ignores forged messages', async () => {
    const portal = await openPage(browser, { width: 1100, height: 900, locale: 'en' });
    opened.push(portal);
    await signIn(portal.page, service.baseUrl, admin.email);
    await portal.page.goto(`${service.baseUrl}/portal/clients`);
    const settings = portal.page.getByTestId('capture-embed');
    await settings.locator('textarea').fill(`https://shop.example\nhttp://localhost:${site.port}/`);
    await settings.locator('button[type=submit]').click();
    await settings.getByRole('status').waitFor();
    expect(await settings.locator('textarea').inputValue()).toBe(`https://shop.example\nhttp://localhost:${site.port}`);
    await settings.screenshot({ path: captureScreenshot('embed-0-portal-settings') });
    expect(await portal.problems()).toEqual([]);
    expect(await partner.call('GET', '/capture-settings')).toEqual({ captureEmbedOrigins: ['https://shop.example', `http://localhost:${site.port}`] });

    // A returnUrl too: inside a partner page the frame stays put and the partner hears `submitted` instead.
    const { caseId, captureUrl } = await partner.call<{ caseId: string; captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport', returnUrl: `${service.baseUrl}/health` });
    const page = await partnerPage(`http://localhost:${site.port}`);
    await page.evaluate((url) => (window as unknown as { startCapture: (url: string) => void }).startCapture(url), captureUrl);
    const frame = await captureFrame(page);
    expect(await page.locator('#slot iframe').getAttribute('allow')).toBe('camera');
    await frame.getByTestId('welcome').waitFor();
    await expect.poll(() => eventTypes(page)).toEqual(['ready', 'step:consent']);

    // Capture-shaped messages from the partner's own window and from a frame on another origin: neither is the capture page.
    await page.evaluate(() => window.postMessage({ source: 'svc-capture', type: 'submitted', caseId: 'forged' }, '*'));
    await page.evaluate((src) => (window as unknown as { addForger: (src: string) => void }).addForger(src), `http://127.0.0.1:${site.port}/forger`);
    await expect.poll(() => page.evaluate(() => (window as unknown as { forgeries: string[] }).forgeries)).toEqual(['sent']);

    await frame.getByTestId('consent-check').check();
    await frame.getByTestId('start').click();
    for (const step of ['DocumentFront', 'Selfie'] as const) {
      await frame.locator(`[data-testid=step][data-step=${step}]`).waitFor();
      expect(await frame.getByTestId('capture-mode').getAttribute('data-mode')).toBe('camera');
      await expect.poll(() => frame.getByTestId('take-photo').isEnabled()).toBe(true);
      if (step === 'DocumentFront') await page.screenshot({ path: captureScreenshot('embed-1-document-in-partner-page') });
      await frame.getByTestId('take-photo').click();
      await frame.getByTestId('confirm-photo').click();
    }
    await frame.locator('[data-testid=step][data-step=LivenessVideo]').waitFor();
    await expect.poll(() => frame.getByTestId('record').isEnabled()).toBe(true);
    await frame.getByTestId('record').click();
    await frame.getByTestId('confirm-video').click({ timeout: 30_000 });
    await frame.locator('[data-testid=step][data-step=submit]').waitFor({ timeout: 60_000 });
    await frame.getByTestId('submit').click();
    await frame.getByTestId('done').waitFor();
    await page.screenshot({ path: captureScreenshot('embed-2-done-in-partner-page') });

    await expect.poll(() => eventTypes(page)).toEqual(['ready', 'step:consent', 'step:DocumentFront', 'step:Selfie', 'step:LivenessVideo', 'step:review', 'submitted']);
    expect((await events(page)).at(-1)).toEqual({ type: 'submitted', caseId });
    expect(new URL(frame.url()).pathname).toBe('/capture');
    await expect.poll(async () => (await partner.call<{ status: string }>('GET', `/verifications/${caseId}`)).status, { timeout: 30_000 }).toBe('Approved');

    await page.evaluate(() => (window as unknown as { handle: { close(): void } }).handle.close());
    expect(await page.locator('#slot iframe').count()).toBe(0);
  }, 180_000);

  it('refuses the frame to a partner origin the tenant does not list', async () => {
    // As the first test left it, so this one also runs alone.
    await partner.call('PUT', '/capture-settings', { captureEmbedOrigins: ['https://shop.example', `http://localhost:${site.port}`] });
    const { caseId, captureUrl } = await partner.call<{ caseId: string; captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });
    const page = await partnerPage(`http://127.0.0.1:${site.port}`, /violates the following Content Security Policy directive: "frame-ancestors/);
    const refused = page.waitForEvent('console', (message) => /^Framing '.*' violates the following Content Security Policy directive: "frame-ancestors 'self' https:\/\/shop\.example http:\/\/localhost:\d+"/.test(message.text()));
    await page.evaluate((url) => (window as unknown as { startCapture: (url: string) => void }).startCapture(url), captureUrl);
    await refused;
    const handle = await page.waitForSelector('#slot iframe');
    // Chromium shows its own error page in the frame, not the capture page.
    await expect.poll(async () => (await handle.contentFrame())?.url()).toMatch(/^chrome-error:/);
    await page.screenshot({ path: captureScreenshot('embed-3-refused-frame') });
    expect(await events(page)).toEqual([]);
    // Nothing was opened: the session is unused.
    expect((await partner.call<{ status: string }>('GET', `/verifications/${caseId}`)).status).toBe('SessionIssued');
  }, 60_000);
});
