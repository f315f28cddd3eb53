/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Tabs forward until the focused element matches the CSS `selector`; a control Tab never
 * reaches, or a trap before it, fails.
 */
export async function tabUntil(page: Page, selector: string, maxPresses = 60): Promise<void> {
  for (let presses = 0; presses < maxPresses; presses++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) return;
  }
  throw new Error(`Tab never reaches ${selector}`);
}

/** Tabs forward until the control with this data-testid is focused. */
export const tabTo = (page: Page, testId: string): Promise<void> => tabUntil(page, `[data-testid="${testId}"]`);

/** The focused control's outline; a hidden file input shows its focus on the label around it. */
export const focusOutline = (page: Page) =>
  page.evaluate(() => {
    const focused = document.activeElement as HTMLElement;
    const shown = focused instanceof HTMLInputElement && focused.type === 'file' ? focused.closest('label')! : focused;
    const style = getComputedStyle(shown);
    return { style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
  });

/** WCAG 2.4.7: the focused control draws an outline at least 2 px wide. */
export async function expectVisibleFocus(page: Page, what = 'the focused control'): Promise<void> {
  const outline = await focusOutline(page);
  expect(outline.style, what).not.toBe('none');
  expect(outline.width, what).toBeGreaterThanOrEqual(2);
}
