/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { accessibilityViolations } from '@svc/service-kit/browser-testing';

export const AXE_SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
export const AXE_LANGUAGES = ['ar', 'en'] as const;

/**
 * axe-core's WCAG 2.1 A/AA rules on one screen at every size: the page is loaded once and only
 * resized, and each check is named, so a failing run lists the screens with their violations.
 */
export function axeSweep(screenshot?: (screen: string, language: string) => string) {
  const found: Record<string, string[]> = {};
  const checked: string[] = [];
  async function check(page: Page, screen: string, language: string, ready: () => Promise<unknown> = () => page.locator('h1').first().waitFor()) {
    await ready();
    await page.waitForLoadState('networkidle');
    expect(await page.locator('html').getAttribute('lang')).toBe(language);
    for (const [sizeName, size] of Object.entries(AXE_SIZES)) {
      await page.setViewportSize(size);
      const violations = await accessibilityViolations(page);
      checked.push(`${screen} ${language} ${sizeName}`);
      if (violations.length > 0) found[`${screen} ${language} ${sizeName}`] = violations;
    }
    if (screenshot) await page.screenshot({ path: screenshot(screen, language), fullPage: true });
  }
  return { found, checked, check };
}
