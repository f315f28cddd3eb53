/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from '@svc/service-kit/browser-testing';
import { buildPage, launchChromium, openPage, removeQuietly, startFx, type WatchedPage } from './browser-fixture.js';

const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
// The embedded default seeds the demo rates the page needs; with DATABASE_URL nothing is seeded.
const withDatabase = Boolean(process.env.DATABASE_URL);

// axe-core's WCAG 2.1 A/AA rules on the public rates page, Arabic and English, phone and desktop.
// One page per language; the sizes only resize it.
describe.skipIf(withDatabase)('the fx rates page meets WCAG 2.1 AA (axe-core)', () => {
  let webRoot = '';
  let fx: Awaited<ReturnType<typeof startFx>>;
  let browser: Browser;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    webRoot = buildPage();
    [fx, browser] = await Promise.all([startFx(webRoot), launchChromium()]);
  }, 180_000);

  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    await fx?.stop();
    if (fx) removeQuietly(fx.dataDir);
    removeQuietly(webRoot);
  });

  it('has no violations in Arabic and English at phone and desktop size', async () => {
    const found: Record<string, string[]> = {};
    const checked: string[] = [];
    for (const [language, path] of [['ar', '/'], ['en', '/en']] as const) {
      const watched = await openPage(browser, { ...SIZES.phone, locale: language });
      opened.push(watched);
      const { page } = watched;
      await page.goto(`${fx.baseUrl}${path}`);
      await page.getByTestId('rates-table').waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe(language);
      for (const [sizeName, size] of Object.entries(SIZES)) {
        await page.setViewportSize(size);
        const violations = await accessibilityViolations(page);
        checked.push(`${language} ${sizeName}`);
        if (violations.length > 0) found[`${language} ${sizeName}`] = violations;
      }
      expect(await watched.problems()).toEqual([]);
    }
    console.log(`fx rates page axe: ${checked.length} checks (${checked.join(', ')}), violations: ${JSON.stringify(found)}`);
    expect(found).toEqual({});
  }, 120_000);
});
