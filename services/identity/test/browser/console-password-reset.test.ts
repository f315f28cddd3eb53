/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { buildViteApp } from '@svc/service-kit/browser-testing';
import { buildPortal, launchChromium, openPage, PASSWORD, removeQuietly, runIdentityCli, screenshotPath, SERVICE_DIR, startIdentity, tearDownPortalTest, type IdentityService, type WatchedPage } from './portal-fixture.js';

const INTERNAL = '/api/internal/v1';
const NEW_PASSWORD = 'a new console passphrase 47';

// The portal's forgot-password test for the console: the .eml the log names, its link, a new password, signed in.
describeEmbeddedOnly("reviewers' console: forgot password in Chromium", () => {
  let webRoot = '';
  let consoleRoot = '';
  let service: IdentityService;
  let browser: Browser;
  const email = `reviewer-${randomUUID().slice(0, 8)}@operator.example`;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    webRoot = buildPortal();
    consoleRoot = buildViteApp(SERVICE_DIR, 'console', 'identity-console-');
    service = await startIdentity(webRoot, { CONSOLE_WEB_ROOT: consoleRoot, LOG_LEVEL: 'info' });
    await runIdentityCli(service, ['staff:create', '--email', email, '--password', PASSWORD]);
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await tearDownPortalTest({ opened, browser, service, webRoot });
    removeQuietly(consoleRoot);
  });

  it('"Forgot password?" → the mailed link → a new password → signed in, and the old session is gone', async () => {
    const login = await fetch(`${service.baseUrl}${INTERNAL}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const oldSession = ((await login.json()) as { sessionToken: string }).sessionToken;
    const watched = await openPage(browser, { width: 1280 });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/console/sign-in`);
    await page.locator('a.sign-in-forgot').click();
    await page.locator('#reset-email').fill(email);
    await page.locator('[data-testid=password-reset-request] button[type=submit]').click();
    await page.locator('[data-testid=password-reset-sent]').waitFor();
    await page.screenshot({ path: screenshotPath('console-password-reset-sent') });

    let file = '';
    await expect.poll(() => (file = /mail written to (\S+\.eml): Reset your password/.exec(service.output())?.[1] ?? ''), { timeout: 30_000 }).not.toBe('');
    const mail = await simpleParser(readFileSync(file));
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe(email);
    const link = /https?:\/\/\S+(\/console\/password-reset#[A-Za-z0-9_-]{43})/.exec(mail.text ?? '');
    expect(link?.[1]).toBeDefined();

    await page.goto(`${service.baseUrl}${link?.[1] ?? ''}`);
    await page.locator('#reset-password').fill(NEW_PASSWORD);
    await page.screenshot({ path: screenshotPath('console-password-reset-choose') });
    await page.locator('[data-testid=password-reset-choose] button[type=submit]').click();
    await page.getByTestId('staff-email').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/queue');
    await page.screenshot({ path: screenshotPath('console-password-reset-signed-in') });

    const old = await fetch(`${service.baseUrl}${INTERNAL}/session`, { headers: { authorization: `Bearer ${oldSession}` } });
    expect(old.status).toBe(401);
    expect(await watched.problems()).toEqual([]);
  });
});
