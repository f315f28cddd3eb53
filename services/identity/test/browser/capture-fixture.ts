import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleCase } from '@svc/checks-local/synthetic';
import { buildViteApp, screenshotPath as screenshotIn } from '@svc/service-kit/browser-testing';
import type { Browser } from 'playwright-core';
import { createTenant, launchChromium, partnerApi, removeQuietly, SERVICE_DIR, startIdentity, tearDownPortalTest, type IdentityService, type PartnerApi, type WatchedPage } from './portal-fixture.js';

export const CAPTURE_ARTIFACTS_DIR = join(SERVICE_DIR, 'test', 'browser', 'artifacts');

/** The capture page built from the current sources into a directory of its own (CAPTURE_WEB_ROOT). */
export function buildCapturePage(): string {
  return buildViteApp(SERVICE_DIR, 'capture', 'identity-capture-');
}

/** test/browser/artifacts/<name>.png (gitignored). */
export function captureScreenshot(name: string): string {
  return screenshotIn(CAPTURE_ARTIFACTS_DIR, name);
}

export function ffmpeg(args: string[]) {
  const result = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ffmpeg failed: ${result.stderr}`);
}

export interface CaptureMedia {
  dir: string;
  passport: string;
  /** The same passport photo under a strong blur: what the page must refuse before upload. */
  blurredPassport: string;
  selfie: string;
  video: string;
  expectedFields: Record<string, string>;
}

/** The synthetic passport and sample face of @svc/checks-local as files, plus a blurred copy made with ffmpeg. */
export async function captureMedia(): Promise<CaptureMedia> {
  const dir = mkdtempSync(join(tmpdir(), 'identity-capture-media-'));
  const sample = await sampleCase();
  const file = (name: string) => join(dir, name);
  writeFileSync(file('passport.jpg'), sample.files['passport.jpg']!);
  writeFileSync(file('selfie.jpg'), sample.files['selfie.jpg']!);
  writeFileSync(file('selfie-video.mp4'), sample.files['selfie-video.mp4']!);
  ffmpeg(['-i', file('passport.jpg'), '-vf', 'gblur=sigma=12', file('blurred.jpg')]);
  return { dir, passport: file('passport.jpg'), blurredPassport: file('blurred.jpg'), selfie: file('selfie.jpg'), video: file('selfie-video.mp4'), expectedFields: sample.expectedFields };
}

/** Chromium's fake camera, fed from a .y4m file (looped), granted without a prompt. */
export function fakeCameraArgs(y4m: string): string[] {
  return ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${y4m}`];
}

/**
 * What the fake camera films: the passport page and the sample face, each as a short raw .y4m
 * clip (Chromium reads no other format and loops it). Two frames a second keep the files small;
 * the page takes one frame.
 */
export function cameraFeeds(media: CaptureMedia): { passport: string; face: string; blurredPassport: string; passportWithoutMrz: string } {
  const feeds = {
    passport: join(media.dir, 'passport.y4m'),
    face: join(media.dir, 'face.y4m'),
    blurredPassport: join(media.dir, 'blurred.y4m'),
    passportWithoutMrz: join(media.dir, 'no-mrz.y4m'),
  };
  imageFeed(media.passport, feeds.passport, DOCUMENT_ON_DESK);
  imageFeed(media.selfie, feeds.face);
  imageFeed(media.blurredPassport, feeds.blurredPassport);
  // The page's top 62 %: printed fields and portrait, sharp, but the MRZ is out of the picture.
  imageFeed(media.passport, feeds.passportWithoutMrz, 'crop=iw:ih*0.62:0:0,');
  return feeds;
}

/** On a desk, inside the page's guide (which leaves 12 % above and below, 7 % at the sides of a 4:3 view). */
export const DOCUMENT_ON_DESK = 'pad=iw/0.81:ih/0.76:(ow-iw)/2:(oh-ih)/2:color=0x3a3f44,';

/** One image as a 2-second .y4m at two frames a second (`filters`, if any, end with a comma). */
export function imageFeed(image: string, y4m: string, filters = ''): void {
  ffmpeg(['-loop', '1', '-i', image, '-t', '2', '-r', '2', '-vf', `${filters}scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p`, '-f', 'yuv4mpegpipe', y4m]);
}

export interface SandboxCaptureService {
  webRoot: string;
  media: CaptureMedia;
  service: IdentityService;
  partner: PartnerApi;
  browser: Browser;
}

/** The capture page built, identity started on the embedded default with a sandbox tenant, and one Chromium (no camera). */
export async function startSandboxCapture(): Promise<SandboxCaptureService> {
  const webRoot = buildCapturePage();
  const media = await captureMedia();
  const service = await startIdentity('/nonexistent-portal-build', { CAPTURE_WEB_ROOT: webRoot });
  const admin = await createTenant(service, { sandbox: true, name: 'Sandbox Bank' });
  const partner = await partnerApi(service.baseUrl, admin);
  return { webRoot, media, service, partner, browser: await launchChromium() };
}

export async function stopSandboxCapture(started: Partial<SandboxCaptureService>, opened: WatchedPage[]): Promise<void> {
  await tearDownPortalTest({ opened, browser: started.browser, service: started.service, webRoot: started.webRoot ?? '' });
  if (started.media) removeQuietly(started.media.dir);
}
