import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { accessibilityViolations } from '@svc/service-kit/browser-testing';
import { startSandboxCapture, stopSandboxCapture, type SandboxCaptureService } from './capture-fixture.js';
import { openPage, type WatchedPage } from './portal-fixture.js';

const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
const LANGUAGES = ['ar', 'en'] as const;
const step = (page: Page, name: string) => page.locator(`[data-testid=step][data-step=${name}]`).waitFor();

// axe-core's WCAG 2.1 A/AA rules on every screen of the capture page: each step of a whole
// file-picker capture and each page a dead link gets, Arabic and English, phone and desktop.
// One context per language and one page per walk keep it quick; sizes change the viewport only.
describeEmbeddedOnly('the capture page meets WCAG 2.1 AA (axe-core)', () => {
  let started: SandboxCaptureService;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    started = await startSandboxCapture();
  }, 240_000);
  afterAll(() => stopSandboxCapture(started ?? {}, opened));

  const createCase = () => started.partner.call<{ caseId: string; captureUrl: string }>('POST', '/verifications', { documentType: 'SyrianPassport' });

  it('has no violations on any screen, in Arabic and English, at phone and desktop size', async () => {
    const { media, service } = started;
    const found: Record<string, string[]> = {};
    const checked: string[] = [];
    for (const language of LANGUAGES) {
      const watched = await openPage(started.browser, { ...SIZES.phone, locale: language, ignoreConsole: /status of (401|410)/ });
      opened.push(watched);
      for (const [sizeName, size] of Object.entries(SIZES)) {
        const check = async (page: Page, screen: string) => {
          expect(await page.locator('html').getAttribute('lang')).toBe(language);
          expect(await page.locator('html').getAttribute('dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
          const violations = await accessibilityViolations(page);
          checked.push(`${screen} ${language} ${sizeName}`);
          if (violations.length > 0) found[`${screen} ${language} ${sizeName}`] = violations;
        };
        const page = await watched.context.newPage();
        await page.setViewportSize(size);
        const { captureUrl } = await createCase();
        await page.goto(captureUrl);
        await page.getByTestId('welcome').waitFor();
        await check(page, 'welcome');
        await page.getByTestId('consent-check').check();
        await page.getByTestId('start').click();
        await step(page, 'DocumentFront');
        await check(page, 'document');
        await page.getByTestId('choose-photo').setInputFiles(media.blurredPassport);
        await page.getByTestId('frame-problem').waitFor();
        await check(page, 'document refused (blurred)');
        await page.getByTestId('choose-photo').setInputFiles(media.passport);
        await page.getByTestId('confirm-photo').waitFor();
        await check(page, 'document shown back');
        await page.getByTestId('confirm-photo').click();
        await step(page, 'Selfie');
        await check(page, 'selfie');
        await page.getByTestId('choose-photo').setInputFiles(media.selfie);
        await page.getByTestId('confirm-photo').click();
        await step(page, 'LivenessVideo');
        await check(page, 'video');
        await page.getByTestId('choose-video').setInputFiles(media.video);
        await step(page, 'submit');
        await check(page, 'submit');

        // A second tab with the same link: the used-link page.
        const second = await watched.context.newPage();
        await second.setViewportSize(size);
        await second.goto(captureUrl);
        await second.getByTestId('dead-link').waitFor();
        await check(second, 'dead link (used)');
        await page.getByTestId('submit').click();
        await page.getByTestId('done').waitFor();
        await check(page, 'done');

        const cancelled = await createCase();
        await started.partner.call('POST', `/verifications/${cancelled.caseId}/cancel`, { reason: 'customer left' });
        await second.goto(cancelled.captureUrl);
        await second.getByTestId('dead-link').waitFor();
        await check(second, 'dead link (cancelled)');
        await second.goto(`${service.baseUrl}/capture#svc_st_nope`);
        await second.getByTestId('dead-link').waitFor();
        await check(second, 'dead link (unknown)');
        await second.goto(`${service.baseUrl}/capture`);
        await second.getByTestId('dead-link').waitFor();
        await check(second, 'not a link');
        await second.goto((await createCase()).captureUrl);
        await second.getByTestId('decline').click();
        await second.getByTestId('declined').waitFor();
        await check(second, 'declined');
        await Promise.all([page.close(), second.close()]);
      }
    }
    expect(found).toEqual({});
    expect(checked).toHaveLength(LANGUAGES.length * Object.keys(SIZES).length * 13);
  }, 480_000);
});
