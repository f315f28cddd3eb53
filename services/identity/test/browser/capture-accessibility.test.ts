import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { accessibilityViolations } from '@svc/service-kit/browser-testing';
import { startSandboxCapture, stopSandboxCapture, type SandboxCaptureService } from './capture-fixture.js';
import { expectVisibleFocus, tabTo } from './keyboard-walk.js';
import { openPage, type WatchedPage } from './portal-fixture.js';

const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
const LANGUAGES = ['ar', 'en'] as const;
const step = (page: Page, name: string) => page.locator(`[data-testid=step][data-step=${name}]`).waitFor();

/** Tabs to the file input and opens its picker with Space, as a keyboard user would. */
async function chooseByKeyboard(page: Page, testId: string, file: string) {
  // The picker appears once the page knows there is no camera; tabbing before that would miss it.
  await page.getByTestId(testId).waitFor({ state: 'attached' });
  await tabTo(page, testId);
  await expectVisibleFocus(page);
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Space')]);
  await chooser.setFiles(file);
}

/** Text at 200 % (root font size): nothing wider than the viewport, no control clipping its label. */
const overflowAt200Percent = (page: Page) =>
  page.evaluate(() => {
    document.documentElement.style.fontSize = '200%';
    const root = document.documentElement;
    const clipped = Array.from(document.querySelectorAll<HTMLElement>('button, label, a, h1, h2, p'))
      .filter((element) => element.offsetParent !== null && element.scrollWidth > element.clientWidth + 1)
      .map((element) => element.outerHTML.slice(0, 80));
    const outside = Array.from(document.body.querySelectorAll<HTMLElement>('*'))
      .filter((element) => { const box = element.getBoundingClientRect(); return box.width > 0 && (box.right > root.clientWidth + 1 || box.left < -1); })
      .map((element) => `${element.tagName.toLowerCase()}.${element.className} ${element.getBoundingClientRect().width}px`);
    const result = { pageWiderThanViewport: root.scrollWidth > root.clientWidth ? outside.slice(0, 5) : false, clipped };
    document.documentElement.style.fontSize = '';
    return result;
  });

// axe-core's WCAG 2.1 A/AA rules on every screen of the capture page: each step of a whole
// file-picker capture and each page a dead link gets, Arabic and English, phone and desktop.
// One context and one walk per language keep it quick; sizes change the viewport only.
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
      // One walk per language: each screen is checked at every size by resizing the same page,
      // which covers the same screens as a walk per size at half the cost.
      const check = async (page: Page, screen: string) => {
        expect(await page.locator('html').getAttribute('lang')).toBe(language);
        expect(await page.locator('html').getAttribute('dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
        for (const [sizeName, size] of Object.entries(SIZES)) {
          await page.setViewportSize(size);
          const violations = await accessibilityViolations(page);
          checked.push(`${screen} ${language} ${sizeName}`);
          if (violations.length > 0) found[`${screen} ${language} ${sizeName}`] = violations;
        }
        await page.setViewportSize(SIZES.phone);
      };
      const page = await watched.context.newPage();
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
    expect(found).toEqual({});
    expect(checked).toHaveLength(LANGUAGES.length * Object.keys(SIZES).length * 13);
  }, 480_000);
  it('is usable by keyboard alone with the file picker, stills its animation on request and takes text at 200 %', async () => {
    const { media } = started;
    const watched = await openPage(started.browser, { ...SIZES.phone, locale: 'en', ignoreConsole: /status of (401|410)/ });
    opened.push(watched);
    const { page } = watched;
    const { caseId, captureUrl } = await createCase();
    await page.goto(captureUrl);
    await page.getByTestId('welcome').waitFor();
    expect(await overflowAt200Percent(page)).toEqual({ pageWiderThanViewport: false, clipped: [] });
    await tabTo(page, 'consent-check');
    await expectVisibleFocus(page);
    await page.keyboard.press('Space');
    expect(await page.getByTestId('consent-check').isChecked()).toBe(true);
    await tabTo(page, 'start');
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    await step(page, 'DocumentFront');
    expect(await overflowAt200Percent(page)).toEqual({ pageWiderThanViewport: false, clipped: [] });
    await chooseByKeyboard(page, 'choose-photo', media.passport);
    await tabTo(page, 'confirm-photo');
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    await step(page, 'Selfie');
    await chooseByKeyboard(page, 'choose-photo', media.selfie);
    await tabTo(page, 'confirm-photo');
    await page.keyboard.press('Space');
    await step(page, 'LivenessVideo');

    // The liveness animation turns the head; a user who asked for less motion gets a still drawing.
    const animation = () => page.locator('.head').evaluate((head) => getComputedStyle(head).animationName);
    expect(await animation()).toBe('turn');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(await animation()).toBe('none');
    expect(await page.locator('.head').evaluate((head) => getComputedStyle(head, '::before').animationName)).toBe('none');
    expect(await overflowAt200Percent(page)).toEqual({ pageWiderThanViewport: false, clipped: [] });

    await chooseByKeyboard(page, 'choose-video', media.video);
    await step(page, 'submit');
    // No trap: Tab goes on past the last control and comes round to the first one again.
    const visited = new Set<string>();
    for (let presses = 0; presses < 30; presses++) {
      await page.keyboard.press('Tab');
      visited.add(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? ''));
    }
    expect(visited).toContain('submit');
    expect(visited.size).toBeGreaterThan(2);
    await tabTo(page, 'submit');
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    await page.getByTestId('done').waitFor();
    expect((await started.partner.call<{ status: string }>('GET', `/verifications/${caseId}`)).status).not.toBe('CaptureStarted');
    expect(await watched.problems()).toEqual([]);
  }, 120_000);
});
