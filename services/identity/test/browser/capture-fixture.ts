import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleCase } from '@svc/checks-local/synthetic';
import { buildViteApp, screenshotPath as screenshotIn } from '@svc/service-kit/browser-testing';
import { SERVICE_DIR } from './portal-fixture.js';

export const CAPTURE_ARTIFACTS_DIR = join(SERVICE_DIR, 'test', 'browser', 'artifacts');

/** The capture page built from the current sources into a directory of its own (CAPTURE_WEB_ROOT). */
export function buildCapturePage(): string {
  return buildViteApp(SERVICE_DIR, 'capture', 'identity-capture-');
}

/** test/browser/artifacts/<name>.png (gitignored). */
export function captureScreenshot(name: string): string {
  return screenshotIn(CAPTURE_ARTIFACTS_DIR, name);
}

function ffmpeg(args: string[]) {
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
