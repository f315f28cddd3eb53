/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshotPath, type IdentityService } from './portal-fixture.js';

/**
 * The forgot-password walk the portal and the console share: sign-in's "Forgot password?", the
 * request, the .eml file the log names (embedded default, no SMTP_URL), its link, and a new
 * password submitted. Returns the link's path, so a test can open the spent link again.
 */
export async function resetPasswordThroughMail(page: Page, service: IdentityService, walk: { app: 'portal' | 'console'; email: string; newPassword: string }): Promise<string> {
  await page.goto(`${service.baseUrl}/${walk.app}/sign-in`);
  await page.locator('a.sign-in-forgot').click();
  await page.locator('#reset-email').fill(walk.email);
  await page.locator('[data-testid=password-reset-request] button[type=submit]').click();
  await page.locator('[data-testid=password-reset-sent]').waitFor();
  await page.screenshot({ path: screenshotPath(`${walk.app}-password-reset-sent`) });

  // The log line names the file and the subject.
  let file = '';
  await expect.poll(() => (file = /mail written to (\S+\.eml): Reset your password/.exec(service.output())?.[1] ?? ''), { timeout: 30_000 }).not.toBe('');
  const mail = await simpleParser(readFileSync(file));
  expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe(walk.email);
  const link = new RegExp(`https?://\\S+(/${walk.app}/password-reset#[A-Za-z0-9_-]{43})`).exec(mail.text ?? '')?.[1];
  expect(link).toBeDefined();

  await page.goto(`${service.baseUrl}${link ?? ''}`);
  await page.locator('#reset-password').fill(walk.newPassword);
  await page.screenshot({ path: screenshotPath(`${walk.app}-password-reset-choose`) });
  await page.locator('[data-testid=password-reset-choose] button[type=submit]').click();
  return link ?? '';
}
