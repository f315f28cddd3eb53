/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { unlabelledControls } from '@svc/service-kit/browser-testing';
import {
  buildPortal,
  createTenant,
  launchChromium,
  openPage,
  PASSWORD,
  removeQuietly,
  screenshotPath,
  setTenantEnabled,
  signIn,
  startIdentity,
  type IdentityService,
  type TenantAdmin,
  type WatchedPage,
} from './portal-fixture.js';

// A refused sign-in is a 401/403/429 answer, which Chromium logs as a failed resource load.
const REFUSED_LOAD = /Failed to load resource: the server responded with a status of (401|403|429)/;

describeEmbeddedOnly('partner portal: signing in and out in Chromium', () => {
  let webRoot = '';
  let service: IdentityService;
  let browser: Browser;
  let sandbox: TenantAdmin;
  let live: TenantAdmin;
  let toLock: TenantAdmin;
  let toDisable: TenantAdmin;
  const opened: WatchedPage[] = [];

  async function open(options: Parameters<typeof openPage>[1] = { width: 1280 }): Promise<WatchedPage> {
    const watched = await openPage(browser, options);
    opened.push(watched);
    return watched;
  }

  async function fillAndSubmit(watched: WatchedPage, email: string, password: string) {
    await watched.page.locator('#sign-in-email').fill(email);
    await watched.page.locator('#sign-in-password').fill(password);
    await watched.page.getByRole('button', { name: /^(Sign in|تسجيل الدخول)$/ }).click();
  }

  beforeAll(async () => {
    webRoot = buildPortal();
    service = await startIdentity(webRoot);
    // One restart for all four tenants: the CLI needs the embedded database to itself.
    [sandbox, live, toLock, toDisable] = await service.whileStopped(async () => [
      await createTenant(service, { sandbox: true, name: 'Sandbox Bank' }),
      await createTenant(service, { name: 'Live Bank' }),
      await createTenant(service, { name: 'Locked Bank' }),
      await createTenant(service, { name: 'Disabled Bank' }),
    ]);
    await setTenantEnabled(service, toDisable.tenantId, false);
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    await service?.stop();
    if (service) removeQuietly(service.dataDir);
    removeQuietly(webRoot);
  });

  it('sends a visitor to sign in, then back to the page they asked for, with the sandbox banner, and signs out', async () => {
    const watched = await open({ width: 1280, ignoreConsole: REFUSED_LOAD });
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/clients`);
    await page.waitForURL(/\/portal\/sign-in\?next=%2Fclients$/);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-sign-in-en'), fullPage: true });

    await fillAndSubmit(watched, sandbox.email, PASSWORD);
    await page.waitForURL(`${service.baseUrl}/portal/clients`);
    await expect.poll(() => page.getByTestId('tenant-name').textContent()).toBe('Sandbox Bank');
    expect(await page.getByTestId('user-email').textContent()).toBe(sandbox.email);
    expect(await page.getByTestId('sandbox-banner').textContent()).toContain('Sandbox');
    expect(await page.locator('nav.sections a[aria-current=page]').textContent()).toBe('OAuth clients');

    // Every section keeps the banner.
    for (const section of ['Cases', 'Webhooks', 'Reports']) {
      await page.locator('nav.sections').getByRole('link', { name: section }).click();
      await page.waitForURL(`${service.baseUrl}/portal/${section.toLowerCase()}`);
      expect(await page.getByTestId('sandbox-banner').isVisible()).toBe(true);
    }

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${service.baseUrl}/portal/sign-in`);
    // The session is gone on the server, not only in the page: the portal sends the visitor back.
    const session = await page.evaluate(async () => (await fetch('/api/partner/v1/portal/session')).status);
    expect(session).toBe(401);
    await page.goto(`${service.baseUrl}/portal/cases`);
    await page.waitForURL(/\/portal\/sign-in\?next=%2Fcases$/);
    expect(await watched.problems()).toEqual([]);
  });

  it('shows no sandbox banner for a live tenant, and / leads to the cases', async () => {
    const watched = await open();
    const { page } = watched;
    await signIn(page, service.baseUrl, live.email);
    await page.goto(`${service.baseUrl}/portal`);
    await page.waitForURL(`${service.baseUrl}/portal/cases`);
    await page.getByTestId('tenant-name').waitFor();
    expect(await page.getByTestId('sandbox-banner').count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });

  it("tells the server of a language switched while signed in, so the account's mails follow it", async () => {
    const watched = await open();
    const { page } = watched;
    await signIn(page, service.baseUrl, live.email);
    await page.getByTestId('tenant-name').waitFor();
    // A sign-in made on the page tells its language too (a passkey or an invitation carries none); then the switch.
    const told = page.waitForResponse((response) => response.url().endsWith('/api/partner/v1/portal/account/language') && response.request().postDataJSON()?.language === 'ar');
    await page.getByRole('button', { name: 'العربية' }).click();
    const response = await told;
    expect(response.status()).toBe(204);
    expect(response.request().method()).toBe('PUT');
    await page.getByRole('button', { name: 'English' }).click();
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('en');
    expect(await watched.problems()).toEqual([]);
  });

  it('says the email or password is wrong, in English and in Arabic', async () => {
    const watched = await open({ width: 1280, ignoreConsole: REFUSED_LOAD });
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/sign-in`);
    await fillAndSubmit(watched, live.email, 'not-the-password-at-all');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The email or password is incorrect.');
    // The password field is emptied for the next try; the email is kept.
    expect(await page.locator('#sign-in-password').inputValue()).toBe('');
    expect(await page.locator('#sign-in-email').inputValue()).toBe(live.email);

    await page.getByRole('button', { name: 'العربية' }).click();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await fillAndSubmit(watched, live.email, 'still-not-the-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('البريد الإلكتروني أو كلمة المرور غير صحيحة.');
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-sign-in-ar'), fullPage: true });
    // The language is remembered on the next visit.
    await page.reload();
    await expect.poll(() => page.locator('h1').textContent()).toBe('تسجيل الدخول إلى بوابة الشركاء');
    expect(await watched.problems()).toEqual([]);
  });

  it('explains the lockout after five failures with the minutes left, even for the right password', async () => {
    const watched = await open({ width: 1280, ignoreConsole: REFUSED_LOAD });
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/sign-in`);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await fillAndSubmit(watched, toLock.email, `wrong-password-${attempt}`);
      await page.locator('.sign-in-card [role=alert]').waitFor();
      await expect.poll(() => page.locator('.sign-in-card button[type=submit]').isDisabled()).toBe(false);
    }
    expect(await page.getByRole('alert').textContent()).toContain('now locked for 15 minutes');
    await fillAndSubmit(watched, toLock.email, PASSWORD);
    await expect.poll(() => page.getByRole('alert').getAttribute('data-code')).toBe('ACCOUNT_LOCKED');
    expect(await page.getByRole('alert').textContent()).toBe('Too many failed sign-ins: this account is locked. Try again in 15 minutes.');
    expect(page.url()).toBe(`${service.baseUrl}/portal/sign-in`);
    expect(await watched.problems()).toEqual([]);
  });

  it("shows the API's message for a disabled tenant and lets nobody in", async () => {
    const watched = await open({ width: 1280, ignoreConsole: REFUSED_LOAD });
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/sign-in`);
    await fillAndSubmit(watched, toDisable.email, PASSWORD);
    await expect.poll(() => page.getByRole('alert').getAttribute('data-code')).toBe('ACCOUNT_DISABLED');
    expect(await page.getByRole('alert').textContent()).toBe('This account has been disabled by an administrator.');
    expect(page.url()).toBe(`${service.baseUrl}/portal/sign-in`);
    expect(await watched.problems()).toEqual([]);
  });

  it('works from the keyboard alone', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/sign-in`);
    // Tab order: the language switch, email, password, the button; Enter submits.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sign-in-email');
    await page.keyboard.type(live.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${service.baseUrl}/portal/cases`);
    expect(await watched.problems()).toEqual([]);
  });
});
