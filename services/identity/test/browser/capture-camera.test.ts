import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { OCR_MODEL, FACE_MODEL, LIVENESS_MODEL, imageDimensions } from '@svc/checks-local';
import { startSignedReceiver, type SignedReceiver } from '../fixtures/signed-receiver.js';
import { buildCapturePage, CAPTURE_ARTIFACTS_DIR, cameraFeeds, captureMedia, captureScreenshot, fakeCameraArgs, type CaptureMedia } from './capture-fixture.js';
import { createTenant, launchChromium, openPage, partnerApi, removeQuietly, startIdentity, tearDownPortalTest, type IdentityService, type PartnerApi, type WatchedPage } from './portal-fixture.js';

const PHONE = { width: 390, height: 844 };

interface CaseDetail {
  status: string;
  documentEvidence: { id: string; evidenceType: string }[];
  decisionReason: string | null;
  ocrResult: { modelName: string; mrzIsValid: boolean | null; extractedFieldsJson: string } | null;
  faceMatch: { modelName: string } | null;
  liveness: { modelName: string; presentationAttackDetected: boolean; attackType: string | null } | null;
}

// A live tenant's case through Chromium's fake camera, against identity as a process on the
// embedded default (CHECKS_PROVIDER=local). The fake device is chosen when the browser starts, so
// the passport is filmed by one browser and the face by another; the second continues the same
// tab state (the capture token in sessionStorage), as a reload would.
describeEmbeddedOnly('the hosted capture page with a camera (Chromium fake camera, live tenant, on-CPU checks)', () => {
  let webRoot = '';
  let service: IdentityService;
  let partner: PartnerApi;
  let sandboxPartner: PartnerApi;
  let receiver: SignedReceiver;
  let media: CaptureMedia;
  let feeds: ReturnType<typeof cameraFeeds>;
  const browsers: Browser[] = [];
  const opened: WatchedPage[] = [];

  async function cameraPage(feed: string, locale: string): Promise<WatchedPage> {
    const browser = await launchChromium(fakeCameraArgs(feed));
    browsers.push(browser);
    const watched = await openPage(browser, { ...PHONE, locale });
    opened.push(watched);
    return watched;
  }

  /**
   * Moves this tab's sessionStorage (capture token, language) into a new browser filming `feed`, as
   * a reload would find it. The old browser is closed first: two fake cameras rendering at once
   * on two cores slow the server's quick looks past their budget.
   */
  async function continueWithCamera(from: WatchedPage, feed: string, locale: string): Promise<WatchedPage> {
    const stored = await from.page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)));
    expect(await from.problems()).toEqual([]);
    await from.context.close();
    await browsers.splice(browsers.indexOf(from.context.browser()!), 1)[0]?.close();
    const to = await cameraPage(feed, locale);
    await to.page.addInitScript((entries: string) => {
      if (sessionStorage.length === 0) for (const [key, value] of JSON.parse(entries) as [string, string][]) sessionStorage.setItem(key, value);
    }, stored);
    return to;
  }

  /**
   * The models load in the background after the first photo; a hint is only given once they
   * are warm. Upload the passport through the capture API until an answer carries one.
   */
  async function warmQualityHints() {
    const { sessionToken } = await partner.call<{ sessionToken: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });
    const exchanged = await fetch(`${service.baseUrl}/api/capture/v1/session`, { method: 'POST', headers: { authorization: `Bearer ${sessionToken}` } });
    const { captureToken } = (await exchanged.json()) as { captureToken: string };
    const passport = readFileSync(media.passport);
    await expect
      .poll(
        async () => {
          const form = new FormData();
          form.set('evidenceType', 'DocumentFront');
          form.set('file', new Blob([new Uint8Array(passport)], { type: 'image/jpeg' }), 'passport.jpg');
          const response = await fetch(`${service.baseUrl}/api/capture/v1/evidence`, { method: 'POST', headers: { authorization: `Bearer ${captureToken}` }, body: form });
          return ((await response.json()) as { quality: unknown }).quality;
        },
        { timeout: 90_000, interval: 500 },
      )
      .not.toBeNull();
  }

  beforeAll(async () => {
    webRoot = buildCapturePage();
    media = await captureMedia();
    feeds = cameraFeeds(media);
    [service, receiver] = await Promise.all([startIdentity('/nonexistent-portal-build', { CAPTURE_WEB_ROOT: webRoot, CHECKS_PROVIDER: 'local' }), startSignedReceiver()]);
    const admin = await createTenant(service, { name: 'Live Bank' });
    const sandboxAdmin = await createTenant(service, { sandbox: true, name: 'Sandbox Bank' });
    [partner, sandboxPartner] = await Promise.all([partnerApi(service.baseUrl, admin), partnerApi(service.baseUrl, sandboxAdmin)]);
    const endpoint = await partner.call<{ signingSecret: string }>('POST', '/webhooks', {
      url: receiver.url('/live'),
      eventTypes: ['verification.capture_started', 'verification.evidence_uploaded', 'verification.automated_checks_running', 'verification.approved', 'verification.rejected', 'verification.pending_manual_review'],
    });
    receiver.trust('/live', endpoint.signingSecret);
  }, 240_000);

  // A fake camera keeps rendering while its browser lives: on two cores, one left open slows the next test's checks past the hint's budget.
  afterEach(async () => {
    for (const watched of opened.splice(0)) await watched.context.close().catch(() => undefined);
    for (const browser of browsers.splice(0)) await browser.close().catch(() => undefined);
  });

  afterAll(async () => {
    await receiver?.close();
    await tearDownPortalTest({ opened: [], browser: undefined, service, webRoot });
    if (media) removeQuietly(media.dir);
  });

  it('captures passport, selfie and liveness video with the camera; the on-CPU checks decide and the signed webhook arrives', async () => {
    const { caseId, captureUrl } = await partner.call<{ caseId: string; captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });

    const document = await cameraPage(feeds.passport, 'en');
    await document.page.goto(captureUrl);
    await document.page.getByTestId('consent-check').check();
    await document.page.getByTestId('start').click();
    await document.page.locator('[data-testid=step][data-step=DocumentFront]').waitFor();
    expect(await document.page.getByTestId('capture-mode').getAttribute('data-mode')).toBe('camera');
    await expect.poll(() => document.page.getByTestId('take-photo').isEnabled()).toBe(true);
    await document.page.screenshot({ path: captureScreenshot('camera-en-1-document'), fullPage: true });
    // Width over height of what the camera films, and of the guide drawn over it.
    const shapes = await document.page.locator('.viewfinder').evaluate((viewfinder) => {
      const video = viewfinder.querySelector('video')!;
      const guide = viewfinder.querySelector('.guide')!.getBoundingClientRect();
      return { camera: video.videoWidth / video.videoHeight, cameraHeight: video.videoHeight, guide: guide.width / guide.height };
    });
    await document.page.getByTestId('take-photo').click();
    await document.page.getByTestId('confirm-photo').click();
    await document.page.locator('[data-testid=step][data-step=Selfie]').waitFor({ timeout: 30_000 });
    // The document photo sent is the part inside the guide (its margin added on every side keeps the guide's shape), not the whole frame.
    const { documentEvidence } = await partner.call<CaseDetail>('GET', `/verifications/${caseId}`);
    const sent = await fetch(`${service.baseUrl}/api/partner/v1/evidence/${documentEvidence[0]!.id}/file`, { headers: partner.headers });
    expect(sent.status).toBe(200);
    const jpeg = Buffer.from(await sent.arrayBuffer());
    writeFileSync(join(CAPTURE_ARTIFACTS_DIR, 'camera-en-1-document-sent.jpg'), jpeg);
    const size = imageDimensions(jpeg)!;
    console.log(`document sent from the camera: ${size.width}×${size.height}; camera ${shapes.camera.toFixed(3)}, guide ${shapes.guide.toFixed(3)} (width/height)`);
    // Within 2 % of the guide's shape, and the camera's shape is well outside that window (5 % away with this feed).
    const tolerance = 0.02;
    expect(Math.abs(shapes.camera - shapes.guide) / shapes.guide).toBeGreaterThan(2 * tolerance);
    expect(Math.abs(size.width / size.height - shapes.guide) / shapes.guide).toBeLessThan(tolerance);
    // The guide and its margins span about 82 % of the view's height: not the frame's whole height.
    expect(size.height).toBeLessThan(0.9 * shapes.cameraHeight);

    const face = await continueWithCamera(document, feeds.face, 'en');
    await face.page.goto(captureUrl);
    await face.page.locator('[data-testid=step][data-step=Selfie]').waitFor();
    await expect.poll(() => face.page.getByTestId('take-photo').isEnabled()).toBe(true);
    await face.page.screenshot({ path: captureScreenshot('camera-en-2-selfie'), fullPage: true });
    await face.page.getByTestId('take-photo').click();
    await face.page.getByTestId('confirm-photo').click();
    await face.page.locator('[data-testid=step][data-step=LivenessVideo]').waitFor({ timeout: 30_000 });
    await expect.poll(() => face.page.getByTestId('record').isEnabled()).toBe(true);
    await face.page.screenshot({ path: captureScreenshot('camera-en-3-video'), fullPage: true });
    await face.page.getByTestId('record').click();
    await face.page.locator('[data-testid=recording-phase][data-phase=recording]').waitFor();
    await face.page.screenshot({ path: captureScreenshot('camera-en-4-recording'), fullPage: true });
    await face.page.getByTestId('confirm-video').click({ timeout: 30_000 });
    await face.page.locator('[data-testid=step][data-step=submit]').waitFor({ timeout: 60_000 });
    await face.page.getByTestId('submit').click();
    await face.page.getByTestId('done').waitFor();
    await face.page.screenshot({ path: captureScreenshot('camera-en-5-done'), fullPage: true });
    expect(await face.problems()).toEqual([]);

    const decided = ['Approved', 'Rejected'];
    // The reason comes along so that a case sent to a person (a check's time-out on a busy machine, an unread MRZ) says why.
    const decision = async () => {
      const { status, decisionReason } = await partner.call<CaseDetail>('GET', `/verifications/${caseId}`);
      return { status, decisionReason };
    };
    await expect.poll(decision, { timeout: 120_000, interval: 500 }).toSatisfy(({ status }: { status: string }) => decided.includes(status));
    const detail = await partner.call<CaseDetail>('GET', `/verifications/${caseId}`);
    // The fake camera films a still photo: the liveness model calls it a replay, and the case is rejected by the models, not by a person.
    expect(detail).toMatchObject({ status: 'Rejected', liveness: { presentationAttackDetected: true, attackType: 'suspected-photo-replay' } });
    expect(detail.ocrResult).toMatchObject({ modelName: OCR_MODEL.name, mrzIsValid: true });
    const fields = JSON.parse(detail.ocrResult!.extractedFieldsJson) as Record<string, string>;
    for (const name of ['documentNumber', 'surname', 'givenNames', 'nationality', 'dateOfBirth']) expect(fields[name], name).toBe(media.expectedFields[name]);
    expect(detail.faceMatch?.modelName).toBe(FACE_MODEL.name);
    expect(detail.liveness?.modelName).toBe(LIVENESS_MODEL.name);

    await expect
      .poll(() => receiver.at('/live').filter((receipt) => receipt.body.data.caseId === caseId).map((receipt) => receipt.body.eventType), { timeout: 30_000 })
      .toEqual(['verification.capture_started', 'verification.evidence_uploaded', 'verification.automated_checks_running', `verification.${detail.status.toLowerCase()}`]);
    for (const receipt of receiver.at('/live')) expect(receipt.verification.ok).toBe(true);
  }, 300_000);

  it('refuses a blurred document frame in the browser, and asks again when the server cannot read the MRZ', async () => {
    await warmQualityHints();
    const { captureUrl } = await partner.call<{ captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });
    const blurred = await cameraPage(feeds.blurredPassport, 'en');
    const uploads: string[] = [];
    blurred.page.on('request', (request) => (request.url().endsWith('/evidence') || request.url().includes('/api/capture/v1/uploads')) && uploads.push(request.url()));
    await blurred.page.goto(captureUrl);
    await blurred.page.getByTestId('consent-check').check();
    await blurred.page.getByTestId('start').click();
    await expect.poll(() => blurred.page.getByTestId('take-photo').isEnabled()).toBe(true);
    await blurred.page.getByTestId('take-photo').click();
    expect(await blurred.page.getByTestId('frame-problem').getAttribute('data-problem')).toBe('tooBlurry');
    await blurred.page.screenshot({ path: captureScreenshot('camera-en-blurred-refused'), fullPage: true });
    expect(uploads).toEqual([]);

    const noMrz = await continueWithCamera(blurred, feeds.passportWithoutMrz, 'en');
    await noMrz.page.goto(captureUrl);
    await expect.poll(() => noMrz.page.getByTestId('take-photo').isEnabled()).toBe(true);
    await noMrz.page.getByTestId('take-photo').click();
    // The last chunk's answer of the resumable upload is the evidence record.
    const answer = noMrz.page.waitForResponse((response) => response.url().includes('/api/capture/v1/uploads/') && response.request().method() === 'PATCH' && response.status() === 200);
    await noMrz.page.getByTestId('confirm-photo').click();
    expect(await (await answer).json()).toMatchObject({ quality: { mrzReadable: false, retake: true, reason: 'MRZ_UNREADABLE' } });
    const problem = noMrz.page.getByTestId('frame-problem');
    await problem.waitFor();
    expect(await problem.getAttribute('data-problem')).toBe('server');
    expect(await problem.textContent()).toContain('could not be read');
    // Back at the camera on the same step, for a retake.
    expect(await noMrz.page.locator('[data-testid=step]').getAttribute('data-step')).toBe('DocumentFront');
    expect(await noMrz.page.getByTestId('take-photo').isVisible()).toBe(true);
    // The viewfinder films again (not a black box), so the retake can be taken.
    await expect.poll(() => noMrz.page.locator('.viewfinder video').evaluate((video: HTMLVideoElement) => video.videoWidth)).toBeGreaterThan(0);
    await noMrz.page.screenshot({ path: captureScreenshot('camera-en-mrz-retake'), fullPage: true });
    expect(await noMrz.problems()).toEqual([]);
  }, 180_000);

  it("records the liveness video at what the check reads (640 px, 600 kbit/s), not at the camera's best", async () => {
    // Chromium's own fake camera (no file): a moving pattern at whatever size the page asks, so the size asked is what is filmed.
    const { caseId, captureUrl } = await sandboxPartner.call<{ caseId: string; captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });
    const sessionToken = new URL(captureUrl).hash.slice(1);
    const exchanged = await fetch(`${service.baseUrl}/api/capture/v1/session`, { method: 'POST', headers: { authorization: `Bearer ${sessionToken}` } });
    const { captureToken } = (await exchanged.json()) as { captureToken: string };
    const capture = { authorization: `Bearer ${captureToken}` };
    expect((await fetch(`${service.baseUrl}/api/capture/v1/consent`, { method: 'POST', headers: { ...capture, 'content-type': 'application/json' }, body: JSON.stringify({ language: 'en' }) })).status).toBe(204);
    for (const [evidenceType, file] of [['DocumentFront', media.passport], ['Selfie', media.selfie]] as const) {
      const form = new FormData();
      form.set('evidenceType', evidenceType);
      form.set('file', new Blob([new Uint8Array(readFileSync(file))], { type: 'image/jpeg' }), `${evidenceType}.jpg`);
      expect((await fetch(`${service.baseUrl}/api/capture/v1/evidence`, { method: 'POST', headers: capture, body: form })).status).toBe(201);
    }
    const browser = await launchChromium(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']);
    browsers.push(browser);
    const watched = await openPage(browser, { ...PHONE, locale: 'en' });
    opened.push(watched);
    // This tab continues the session the API started, as a reload of the tab that started it would.
    await watched.page.addInitScript((stored: string) => sessionStorage.setItem('capture.session', stored), JSON.stringify({ sessionToken, captureToken }));
    await watched.page.goto(captureUrl);
    await watched.page.locator('[data-testid=step][data-step=LivenessVideo]').waitFor();
    await expect.poll(() => watched.page.getByTestId('record').isEnabled()).toBe(true);
    await watched.page.getByTestId('record').click();
    await watched.page.getByTestId('confirm-video').waitFor({ timeout: 30_000 });
    const filmed = await watched.page.locator('video.preview').evaluate(async (video: HTMLVideoElement) => {
      if (video.readyState < 1) await new Promise((resolve) => video.addEventListener('loadedmetadata', resolve, { once: true }));
      return { width: video.videoWidth, height: video.videoHeight };
    });
    expect(Math.max(filmed.width, filmed.height)).toBeLessThanOrEqual(640);
    await watched.page.getByTestId('confirm-video').click();
    await watched.page.locator('[data-testid=step][data-step=submit]').waitFor({ timeout: 60_000 });
    const { videoEvidence } = await sandboxPartner.call<{ videoEvidence: { fileSizeBytes: number }[] }>('GET', `/verifications/${caseId}`);
    console.log(`liveness video as recorded by the page: ${filmed.width}×${filmed.height}, ${videoEvidence[0]?.fileSizeBytes} bytes`);
    // 6 seconds at 600 kbit/s are 450 KB; a quarter more allows the container and the encoder's overshoot.
    expect(videoEvidence[0]!.fileSizeBytes).toBeLessThanOrEqual(Math.round(1.25 * 6 * (600_000 / 8)));
    expect(await watched.problems()).toEqual([]);
  }, 180_000);

  it('keeps the video upload going through a lost connection: offline mid-body, back online, the same piece is sent again and the case completes (Arabic, phone size)', async () => {
    // A sandbox case: the simulator decides, so only the page and the connection are under test. The face feed serves every step.
    const { caseId, captureUrl } = await sandboxPartner.call<{ caseId: string; captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });
    const watched = await cameraPage(feeds.face, 'ar');
    const { page, context } = watched;
    await page.goto(captureUrl);
    await page.getByTestId('welcome').waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.screenshot({ path: captureScreenshot('camera-ar-0-welcome'), fullPage: true });
    await page.getByTestId('consent-check').check();
    await page.getByTestId('start').click();
    for (const [step, shot] of [
      ['DocumentFront', 'camera-ar-1-document'],
      ['Selfie', 'camera-ar-2-selfie'],
    ] as const) {
      await page.locator(`[data-testid=step][data-step=${step}]`).waitFor();
      await expect.poll(() => page.getByTestId('take-photo').isEnabled()).toBe(true);
      await page.screenshot({ path: captureScreenshot(shot), fullPage: true });
      await page.getByTestId('take-photo').click();
      await page.getByTestId('confirm-photo').click();
    }
    await page.locator('[data-testid=step][data-step=LivenessVideo]').waitFor();
    await expect.poll(() => page.getByTestId('record').isEnabled()).toBe(true);
    await page.screenshot({ path: captureScreenshot('camera-ar-3-video'), fullPage: true });
    await page.getByTestId('record').click();
    await page.locator('[data-testid=recording-phase][data-phase=recording]').waitFor();
    await page.screenshot({ path: captureScreenshot('camera-ar-4-recording'), fullPage: true });
    await page.getByTestId('confirm-video').waitFor({ timeout: 30_000 });

    // The first attempt is held on its way, so the connection is lost mid-upload whatever the
    // machine's speed (on loopback a video is sent before a test could react); later attempts pass straight through.
    let held = 0;
    await page.route('**/api/capture/v1/uploads**', async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      held += 1;
      if (held > 1) return route.continue();
      await expect.poll(() => page.evaluate(() => navigator.onLine), { timeout: 60_000 }).toBe(false);
      await route.continue().catch(() => undefined);
    });
    const failed: string[] = [];
    page.on('requestfailed', (request) => request.url().includes('/api/capture/v1/uploads/') && failed.push(request.failure()?.errorText ?? 'failed'));
    await page.getByTestId('confirm-video').click();
    const upload = page.getByTestId('upload');
    // The request is out and the bar shows (Chromium reports no body progress for a request a route holds).
    await expect.poll(() => held, { timeout: 30_000 }).toBe(1);
    await upload.waitFor();
    expect(await upload.getAttribute('data-state')).toBe('sending');
    await context.setOffline(true);
    await expect.poll(() => upload.getAttribute('data-state')).toBe('retrying');
    await page.screenshot({ path: captureScreenshot('camera-ar-5-upload-retrying'), fullPage: true });
    // Nothing is sent while offline; back online, the page resumes the video by itself (the held chunk never arrived: from its offset).
    expect(held).toBe(1);
    await context.setOffline(false);
    await page.locator('[data-testid=step][data-step=submit]').waitFor({ timeout: 60_000 });
    expect(held).toBeGreaterThanOrEqual(2);
    expect(failed).toHaveLength(1);
    const status = await sandboxPartner.call<{ videoEvidence: unknown[] }>('GET', `/verifications/${caseId}`);
    expect(status.videoEvidence).toHaveLength(1);
    await page.screenshot({ path: captureScreenshot('camera-ar-6-submit'), fullPage: true });
    await page.getByTestId('submit').click();
    await page.getByTestId('done').waitFor();
    await page.screenshot({ path: captureScreenshot('camera-ar-7-done'), fullPage: true });
    await expect.poll(async () => (await sandboxPartner.call<{ status: string }>('GET', `/verifications/${caseId}`)).status, { timeout: 30_000 }).toBe('Approved');
    // The aborted attempt is the page's own doing, not an error worth a console line; nothing else may appear.
    expect((await watched.problems()).filter((problem) => !/ERR_INTERNET_DISCONNECTED|net::ERR/.test(problem))).toEqual([]);
  }, 180_000);
});
