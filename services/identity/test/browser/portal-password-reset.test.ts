/// <reference lib="dom" />
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { API, buildPortal, createTenant, launchChromium, openPage, portalSessionToken, screenshotPath, startIdentity, tearDownPortalTest, type IdentityService, type TenantAdmin, type WatchedPage } from './portal-fixture.js';
import { resetPasswordThroughMail } from './password-reset-walk.js';

const NEW_PASSWORD = 'a new portal passphrase 31';

// The first run: identity on the embedded default (no SMTP_URL) writes the mail as an
// .eml file and names it in its log; the reader follows the link in it to a new password.
describeEmbeddedOnly('partner portal: forgot password in Chromium, through the .eml the log names', () => {
  let webRoot = '';
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    webRoot = buildPortal();
    // Info, as an operator runs it: the line naming the .eml file is an info line.
    service = await startIdentity(webRoot, { LOG_LEVEL: 'info' });
    admin = await service.whileStopped(() => createTenant(service, { name: 'Reset Bank' }));
    browser = await launchChromium();
  }, 240_000);
  afterAll(() => tearDownPortalTest({ opened, browser, service, webRoot }));

  it('"Forgot password?" → the mailed link → a new password → signed in, and the old session is gone', async () => {
    const oldSession = await portalSessionToken(service.baseUrl, admin.email);
    // The spent link's 410 is logged by Chromium as a failed load; the page answering it is what is tested.
    const watched = await openPage(browser, { width: 1280, ignoreConsole: /status of 410/ });
    opened.push(watched);
    const { page } = watched;
    const link = await resetPasswordThroughMail(page, service, { app: 'portal', email: admin.email, newPassword: NEW_PASSWORD });
    await page.locator('nav.sections').waitFor();
    expect(new URL(page.url()).pathname).toBe('/portal/cases');

    const old = await fetch(`${service.baseUrl}${API}/portal/session`, { headers: { authorization: `Bearer ${oldSession}` } });
    expect(old.status).toBe(401);
    // The link works once: opened again, the page says what to do.
    await page.goto(`${service.baseUrl}${link}`);
    await page.locator('#reset-password').fill('yet another portal passphrase');
    await page.locator('[data-testid=password-reset-choose] button[type=submit]').click();
    await expect.poll(() => page.locator('[data-testid=password-reset-unusable]').getAttribute('data-code')).toBe('RESET_LINK_USED');
    await page.screenshot({ path: screenshotPath('portal-password-reset-used') });
    expect(await watched.problems()).toEqual([]);
  });

  it('an Arabic page asks for its mail in Arabic; both screens at phone and desktop size, in Arabic and English', async () => {
    // Screens for the lead's review beside the test's own artifacts.
    const shots = process.env.MAIL_SHOTS_DIR;
    if (shots) mkdirSync(shots, { recursive: true });
    const shot = (name: string) => (shots ? join(shots, `${name}.png`) : screenshotPath(name));
    for (const locale of ['ar', 'en'] as const) {
      for (const [size, width] of [['phone', 390], ['desktop', 1280]] as const) {
        const watched = await openPage(browser, { width, height: size === 'phone' ? 844 : 900, locale });
        opened.push(watched);
        const { page } = watched;
        await page.goto(`${service.baseUrl}/portal/sign-in`);
        await page.locator('a.sign-in-forgot').click();
        await page.locator('#reset-email').waitFor();
        expect(await page.evaluate(() => document.documentElement.dir)).toBe(locale === 'ar' ? 'rtl' : 'ltr');
        await page.screenshot({ path: shot(`forgot-password-${locale}-${size}`), fullPage: true });
        if (locale === 'ar' && size === 'phone') {
          // The page's language travels as Accept-Language, so the mail is Arabic.
          await page.locator('#reset-email').fill(admin.email);
          await page.locator('[data-testid=password-reset-request] button[type=submit]').click();
          await page.locator('[data-testid=password-reset-sent]').waitFor();
          let file = '';
          await expect.poll(() => (file = /mail written to (\S+\.eml): إعادة تعيين كلمة المرور/.exec(service.output())?.[1] ?? ''), { timeout: 30_000 }).not.toBe('');
          const mail = await simpleParser(readFileSync(file));
          expect(mail.html).toContain('dir="rtl"');
        }
        await page.goto(`${service.baseUrl}/portal/password-reset#${'A'.repeat(43)}`);
        await page.locator('#reset-password').waitFor();
        await page.screenshot({ path: shot(`reset-password-${locale}-${size}`), fullPage: true });
        expect(await watched.problems()).toEqual([]);
      }
    }
  });
});
