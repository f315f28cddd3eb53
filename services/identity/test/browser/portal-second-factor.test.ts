/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { lowContrastText, unlabelledControls } from '@svc/service-kit/browser-testing';
import { authenticatorCode } from '../second-factor-helpers.js';
import { buildPortal, createTenant, createUser, launchChromium, openPage, PASSWORD, screenshotPath, signIn, startIdentity, tearDownPortalTest, type IdentityService, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

// A wrong code answers 400 and an enrolment-only session's refused calls 403: Chromium logs both as failed loads.
const REFUSED_LOAD = /Failed to load resource: the server responded with a status of (400|401|403)/;

describeEmbeddedOnly('partner portal: second factors in Chromium', () => {
  const started: { opened: WatchedPage[]; browser: Browser | undefined; service: IdentityService | undefined; webRoot: string } = { opened: [], browser: undefined, service: undefined, webRoot: '' };
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;
  let colleague: { email: string };

  async function open(): Promise<WatchedPage> {
    const watched = await openPage(browser, { width: 1280, ignoreConsole: REFUSED_LOAD });
    started.opened.push(watched);
    return watched;
  }

  beforeAll(async () => {
    started.webRoot = buildPortal();
    service = started.service = await startIdentity(started.webRoot);
    ({ admin, colleague } = await service.whileStopped(async () => {
      const tenant = await createTenant(service, { name: 'Sandbox Bank', sandbox: true });
      return { admin: tenant, colleague: await createUser(service, tenant.tenantId, 'PartnerReadOnly') };
    }));
    browser = started.browser = await launchChromium();
  }, 240_000);

  afterAll(() => tearDownPortalTest(started));

  it('requires a second factor for the tenant, sets up an authenticator app, and signs back in with its code', async () => {
    const { page } = await open();
    await signIn(page, service.baseUrl, admin.email);
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByTestId('security-section').waitFor();
    // Controlled by the server's answer: the box shows the new state once the API has stored it.
    await page.getByLabel('Require a second factor for everyone in this organisation').click();
    await page.locator('#require-second-factor:checked:enabled').waitFor();

    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByTestId('totp-qr').waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!;
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.locator('#totp-code').fill('000000');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('[data-code=INVALID_CODE]').waitFor();
    await page.locator('#totp-code').fill(authenticatorCode(secret, new Date()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    expect(await page.getByTestId('recovery-codes').locator('li').count()).toBe(10);
    await page.screenshot({ path: screenshotPath('portal-second-factor-en'), fullPage: true });
    await page.getByRole('button', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'رموز الاسترداد' }).waitFor();
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-second-factor-ar'), fullPage: true });
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText(/^Set up on /).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/portal\/sign-in/);
    await page.locator('#sign-in-email').fill(admin.email);
    await page.locator('#sign-in-password').fill(PASSWORD);
    await page.locator('form.sign-in-card button[type=submit]').click();
    await page.getByTestId('second-step-form').waitFor();
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-second-step-en'), fullPage: true });
    // The next step's code: the confirmation spent this one, and one step ahead is inside the window.
    await page.locator('#second-step-code').fill(authenticatorCode(secret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('nav.sections').waitFor();
  }, 180_000);

  it('sends a colleague without a factor to set one up before anything else', async () => {
    const { page } = await open();
    await page.goto(`${service.baseUrl}/portal/sign-in`);
    await page.locator('#sign-in-email').fill(colleague.email);
    await page.locator('#sign-in-password').fill(PASSWORD);
    await page.locator('form.sign-in-card button[type=submit]').click();
    await page.getByText('Your organisation requires a second factor. Set one up to continue.').waitFor();
    await page.getByRole('button', { name: 'العربية' }).click();
    await page.getByText('تشترط مؤسستك عاملًا ثانيًا للمصادقة. أعِدّ واحدًا للمتابعة.').waitFor();
    await page.screenshot({ path: screenshotPath('portal-enrolment-required-ar'), fullPage: true });
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!;
    await page.locator('#totp-code').fill(authenticatorCode(secret, new Date()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('button', { name: 'I have saved them' }).click();
    // The full portal now: the cases load.
    await page.getByRole('link', { name: 'Cases' }).click();
    await page.waitForURL(/\/portal\/cases/);
  }, 120_000);
});
