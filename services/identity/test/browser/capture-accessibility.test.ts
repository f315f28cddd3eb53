import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { accessibilityViolations } from '@svc/service-kit/browser-testing';
import { startSandboxCapture, stopSandboxCapture, type SandboxCaptureService } from './capture-fixture.js';
import { openPage, type WatchedPage } from './portal-fixture.js';

const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };
const LANGUAGES = ['ar', 'en'] as const;

interface Screen {
  name: string;
  /** Brings a fresh page to the screen; `url` is a new sandbox case's link. */
  reach: (page: Page, url: string) => Promise<void>;
}

/** Every screen of the capture page checked here: a new screen is one more entry. */
const SCREENS: Screen[] = [
  { name: 'welcome', reach: async (page, url) => void (await page.goto(url), await page.getByTestId('welcome').waitFor()) },
  {
    name: 'document (file picker)',
    reach: async (page, url) => {
      await page.goto(url);
      await page.getByTestId('consent-check').check();
      await page.getByTestId('start').click();
      await page.locator('[data-testid=step][data-step=DocumentFront]').waitFor();
    },
  },
  {
    name: 'not a link',
    reach: async (page, url) => {
      await page.goto(url.split('#')[0]!);
      await page.locator('main').waitFor();
      await page.waitForLoadState('networkidle');
    },
  },
];

// axe-core's WCAG 2.1 A/AA rules on the capture page's screens, Arabic and English, phone and desktop.
describeEmbeddedOnly('the capture page meets WCAG 2.1 AA (axe-core)', () => {
  let started: SandboxCaptureService;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    started = await startSandboxCapture();
  }, 240_000);
  afterAll(() => stopSandboxCapture(started ?? {}, opened));

  it('has no violations on any screen, in Arabic and English, at phone and desktop size', async () => {
    const found: Record<string, string[]> = {};
    for (const language of LANGUAGES) {
      for (const [sizeName, size] of Object.entries(SIZES)) {
        for (const screen of SCREENS) {
          const { captureUrl } = await started.partner.call<{ captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });
          const watched = await openPage(started.browser, { ...size, locale: language, ignoreConsole: /status of (401|410)/ });
          await screen.reach(watched.page, captureUrl);
          expect(await watched.page.locator('html').getAttribute('lang')).toBe(language);
          const violations = await accessibilityViolations(watched.page);
          if (violations.length > 0) found[`${screen.name} ${language} ${sizeName}`] = violations;
          await watched.context.close();
        }
      }
    }
    expect(found).toEqual({});
  }, 240_000);
});
