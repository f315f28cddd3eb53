import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { transferredScriptAndStyleBytes } from '@svc/service-kit/browser-testing';
import { buildCapturePage, captureMedia, captureScreenshot, type CaptureMedia } from './capture-fixture.js';
import { createTenant, launchChromium, openPage, partnerApi, removeQuietly, startIdentity, tearDownPortalTest, type IdentityService, type PartnerApi, type WatchedPage } from './portal-fixture.js';

const PHONE = { width: 390, height: 844 };
/** First load of the page: JS and CSS as the browser received them (brotli). */
const SIZE_BUDGET_BYTES = 120 * 1024;

// The hosted capture page against identity as a process on the embedded default, in Chromium
// without a camera: the file-picker fallback carries a sandbox case to its decision.
describeEmbeddedOnly('the hosted capture page in Chromium (no camera: file picker)', () => {
  let webRoot = '';
  let service: IdentityService;
  let partner: PartnerApi;
  let browser: Browser;
  let media: CaptureMedia;
  const opened: WatchedPage[] = [];

  async function open(url: string, locale = 'en'): Promise<WatchedPage> {
    const watched = await openPage(browser, { ...PHONE, locale, ignoreConsole: /status of (401|410)/ });
    opened.push(watched);
    await watched.page.goto(url);
    return watched;
  }

  const createCase = (body: Record<string, unknown> = {}) =>
    partner.call<{ caseId: string; captureUrl: string; sessionToken: string }>('POST', '/verifications', { documentType: 'SyrianPassport', ...body });

  async function choose(page: Page, testId: string, file: string) {
    await page.getByTestId(testId).setInputFiles(file);
  }

  beforeAll(async () => {
    webRoot = buildCapturePage();
    media = await captureMedia();
    service = await startIdentity('/nonexistent-portal-build', { CAPTURE_WEB_ROOT: webRoot });
    const admin = await createTenant(service, { sandbox: true, name: 'Sandbox Bank' });
    partner = await partnerApi(service.baseUrl, admin);
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await tearDownPortalTest({ opened, browser, service, webRoot });
    if (media) removeQuietly(media.dir);
  });

  it('serves the page with a strict CSP, the camera allowed here only, and no Referer', async () => {
    const response = await fetch(`${service.baseUrl}/capture`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get('permissions-policy')).toBe('camera=(self), microphone=()');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const portal = await fetch(`${service.baseUrl}/portal`);
    expect(portal.headers.get('permissions-policy')).toBeNull();
  });

  it('takes a sandbox case from consent to submitted with the file picker, within the size budget, and sends the user back', async () => {
    // The partner's page after capture: any page on localhost does (private targets are allowed in tests).
    const returnUrl = `http://localhost:${new URL(service.baseUrl).port}/health`;
    const { caseId, captureUrl } = await createCase({ returnUrl });
    expect(captureUrl).toBe(`${service.baseUrl}/capture?case=${caseId}#${captureUrl.split('#')[1]}`);
    const watched = await open(captureUrl);
    const { page } = watched;
    const requests: string[] = [];
    // blob: URLs are the page's own photos shown back; they never leave the browser.
    page.on('request', (request) => !request.url().startsWith('blob:') && requests.push(request.url()));
    await page.getByTestId('welcome').waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByTestId('welcome').textContent()).toContain('Sandbox Bank asks you to verify your identity');
    // No camera on this machine: the phone is offered with a QR code drawn in the page.
    await page.getByTestId('qr-code').waitFor();
    const size = await page.evaluate(transferredScriptAndStyleBytes);
    expect(size.bytes, size.files.join('\n')).toBeGreaterThan(0);
    expect(size.bytes, size.files.join('\n')).toBeLessThanOrEqual(SIZE_BUDGET_BYTES);
    await page.screenshot({ path: captureScreenshot('capture-en-1-welcome'), fullPage: true });
    // Opening the link did not use it.
    expect((await partner.call<{ status: string }>('GET', `/verifications/${caseId}`)).status).toBe('SessionIssued');

    expect(await page.getByTestId('start').isDisabled()).toBe(true);
    await page.getByTestId('consent-check').check();
    await page.getByTestId('start').click();
    await page.locator('[data-testid=step][data-step=DocumentFront]').waitFor();
    // The page shows the camera mode until the browser has refused the camera, which takes a moment on a busy machine.
    await expect.poll(() => page.getByTestId('capture-mode').getAttribute('data-mode')).toBe('file');
    await page.screenshot({ path: captureScreenshot('capture-en-2-document'), fullPage: true });

    // A blurred photo is refused in the browser, before any upload.
    await choose(page, 'choose-photo', media.blurredPassport);
    await page.getByTestId('frame-problem').waitFor();
    expect(await page.getByTestId('frame-problem').getAttribute('data-problem')).toBe('tooBlurry');
    await page.screenshot({ path: captureScreenshot('capture-en-3-blurred-refused'), fullPage: true });
    expect(requests.filter((url) => url.endsWith('/evidence'))).toEqual([]);

    await choose(page, 'choose-photo', media.passport);
    await page.getByTestId('confirm-photo').click();
    await page.locator('[data-testid=step][data-step=Selfie]').waitFor();
    await choose(page, 'choose-photo', media.selfie);
    await page.screenshot({ path: captureScreenshot('capture-en-4-selfie-confirm'), fullPage: true });
    await page.getByTestId('confirm-photo').click();
    await page.locator('[data-testid=step][data-step=LivenessVideo]').waitFor();
    await page.screenshot({ path: captureScreenshot('capture-en-5-video'), fullPage: true });
    await choose(page, 'choose-video', media.video);
    await page.locator('[data-testid=step][data-step=submit]').waitFor();
    await page.screenshot({ path: captureScreenshot('capture-en-6-submit'), fullPage: true });

    const detail = await partner.call<{ consent: { language: string; userAgent: string } | null }>('GET', `/verifications/${caseId}`);
    expect(detail.consent).toMatchObject({ language: 'en', userAgent: expect.stringContaining('Chrome') });
    // Checked before leaving: the partner's page (here the service's /health) is not ours to judge.
    expect(await watched.problems()).toEqual([]);
    await page.getByTestId('submit').click();
    await page.waitForURL((url) => url.host.startsWith('localhost:') && url.pathname === '/health', { waitUntil: 'commit' });
    const back = new URL(page.url());
    expect(Object.fromEntries(back.searchParams)).toEqual({ caseId, status: 'submitted' });
    await expect.poll(async () => (await partner.call<{ status: string }>('GET', `/verifications/${caseId}`)).status, { timeout: 30_000 }).toBe('Approved');
    // Every request went to this service (the return address aside).
    expect(requests.filter((url) => !url.startsWith(service.baseUrl) && !url.startsWith(returnUrl))).toEqual([]);
  });

  it('says when a link was used (a second tab), expired or cancelled, and when it is not a link at all', async () => {
    const { caseId, captureUrl } = await createCase();
    const first = await open(captureUrl);
    await first.page.getByTestId('consent-check').check();
    await first.page.getByTestId('start').click();
    await first.page.locator('[data-testid=step][data-step=DocumentFront]').waitFor();
    // A reload of the same tab continues where it was.
    await first.page.reload();
    await first.page.locator('[data-testid=step][data-step=DocumentFront]').waitFor();

    const second = await open(captureUrl);
    await second.page.getByTestId('dead-link').waitFor();
    expect(await second.page.getByTestId('dead-link').getAttribute('data-reason')).toBe('used');
    await second.page.screenshot({ path: captureScreenshot('capture-en-dead-used'), fullPage: true });

    const cancelled = await createCase();
    await partner.call('POST', `/verifications/${cancelled.caseId}/cancel`, { reason: 'customer left' });
    const closed = await open(cancelled.captureUrl);
    await closed.page.getByTestId('dead-link').waitFor();
    expect(await closed.page.getByTestId('dead-link').getAttribute('data-reason')).toBe('closed');

    const broken = await open(`${service.baseUrl}/capture#svc_st_nope`);
    await broken.page.getByTestId('dead-link').waitFor();
    expect(await broken.page.getByTestId('dead-link').getAttribute('data-reason')).toBe('unknown');
    expect(await broken.page.getByRole('heading').textContent()).toBe('This link does not work');
    expect((await partner.call<{ status: string }>('GET', `/verifications/${caseId}`)).status).toBe('CaptureStarted');
    for (const watched of [first, second, closed, broken]) expect(await watched.problems()).toEqual([]);
  });

  it('records nothing when the user does not agree', async () => {
    const { caseId, captureUrl } = await createCase();
    const watched = await open(captureUrl);
    await watched.page.getByTestId('decline').click();
    await watched.page.getByTestId('declined').waitFor();
    const detail = await partner.call<{ status: string; consent: unknown }>('GET', `/verifications/${caseId}`);
    expect(detail).toMatchObject({ status: 'SessionIssued', consent: null });
    expect(await watched.problems()).toEqual([]);
  });

  it('opens in Arabic by default, right to left, and switches to Kurdish Sorani (RTL) and Kurmanji (LTR)', async () => {
    const { captureUrl } = await createCase();
    const watched = await open(captureUrl, 'de-DE');
    const { page } = watched;
    await page.getByTestId('welcome').waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.getByTestId('welcome').textContent()).toContain('تطلب منك Sandbox Bank التحقق من هويتك');
    await page.screenshot({ path: captureScreenshot('capture-ar-1-welcome'), fullPage: true });
    await page.getByTestId('consent-check').check();
    await page.getByTestId('start').click();
    await page.locator('[data-testid=step][data-step=DocumentFront]').waitFor();
    await page.screenshot({ path: captureScreenshot('capture-ar-2-document'), fullPage: true });

    await page.getByLabel('اللغة').selectOption('ckb');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('ckb');
    await page.screenshot({ path: captureScreenshot('capture-ckb-2-document'), fullPage: true });
    await page.getByLabel('زمان').selectOption('kmr');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Wêneyê pasaporta xwe');
    await page.screenshot({ path: captureScreenshot('capture-kmr-2-document'), fullPage: true });
    expect(await watched.problems()).toEqual([]);
  });
});
