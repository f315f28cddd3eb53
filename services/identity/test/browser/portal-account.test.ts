/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { unlabelledControls } from '@svc/service-kit/browser-testing';
import { buildPortal, createTenant, launchChromium, openPage, PASSWORD, screenshotPath, signIn, startIdentity, tearDownPortalTest, type IdentityService, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

// An ended session's next call answers 401, and a wrong current password 403: Chromium logs both as failed loads.
const REFUSED_LOAD = /Failed to load resource: the server responded with a status of (401|403)/;

describeEmbeddedOnly('partner portal: your account (password and sessions) in Chromium', () => {
  const started: { opened: WatchedPage[]; browser: Browser | undefined; service: IdentityService | undefined; webRoot: string } = { opened: [], browser: undefined, service: undefined, webRoot: '' };
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;

  async function open(): Promise<WatchedPage> {
    const watched = await openPage(browser, { width: 1280, ignoreConsole: REFUSED_LOAD });
    started.opened.push(watched);
    return watched;
  }

  beforeAll(async () => {
    started.webRoot = buildPortal();
    service = started.service = await startIdentity(started.webRoot);
    admin = await service.whileStopped(() => createTenant(service, { name: 'Account Bank' }));
    browser = started.browser = await launchChromium();
  }, 240_000);

  afterAll(() => tearDownPortalTest(started));

  it('ends a session from another browser, which is signed out at its next step; changes the password', async () => {
    const laptop = await open();
    const phone = await open();
    await signIn(phone.page, service.baseUrl, admin.email);
    await signIn(laptop.page, service.baseUrl, admin.email);

    const { page } = laptop;
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.waitForURL(`${service.baseUrl}/portal/account`);
    const rows = page.getByTestId('sessions-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.locator('tbody tr[data-current=true]').count()).toBe(1);
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-account-en'), fullPage: true });

    await page.locator('tbody tr:not([data-current])').getByRole('button', { name: 'End session' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByText('The session was ended.').waitFor();

    // The other browser learns at its next request: any screen sends it back to sign in.
    await phone.page.getByRole('link', { name: 'Reports' }).click();
    await phone.page.waitForURL(/\/portal\/sign-in\?next=/);

    await page.locator('#current-password').fill('not my password at all');
    await page.locator('#new-password').fill('a fresh and long passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('[data-code=WRONG_PASSWORD]').waitFor();

    await page.locator('#current-password').fill(PASSWORD);
    await page.locator('#new-password').fill('a fresh and long passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. 0 other sessions were ended.').waitFor();

    await page.getByRole('button', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'حسابك' }).waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.screenshot({ path: screenshotPath('portal-account-ar'), fullPage: true });
    await page.getByRole('button', { name: 'English' }).click();
  }, 120_000);
});
