/// <reference lib="dom" />
import { createServer } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { lowContrastText, unlabelledControls } from '@svc/service-kit/browser-testing';
import { buildPortal, createTenant, launchChromium, openPage, PASSWORD, screenshotPath, signIn, startIdentity, tearDownPortalTest, type IdentityService, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

/** A port free now, so WEBAUTHN_ORIGINS can name it before the service starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describeEmbeddedOnly('partner portal: passkeys in Chromium', () => {
  const started: { opened: WatchedPage[]; browser: Browser | undefined; service: IdentityService | undefined; webRoot: string } = { opened: [], browser: undefined, service: undefined, webRoot: '' };
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;
  // WebAuthn needs a secure context: http://localhost is one, http://127.0.0.1 is not for every browser.
  let origin: string;

  beforeAll(async () => {
    started.webRoot = buildPortal();
    const port = await freePort();
    origin = `http://localhost:${port}`;
    service = started.service = await startIdentity(started.webRoot, { PORT: String(port), WEBAUTHN_ORIGINS: origin });
    admin = await service.whileStopped(() => createTenant(service, { name: 'Sandbox Bank', sandbox: true }));
    browser = started.browser = await launchChromium();
  }, 240_000);

  afterAll(() => tearDownPortalTest(started));

  it('requires a second factor, registers a passkey, and signs back in with it alone and as the second step', async () => {
    const watched = await openPage(browser, { width: 1280 });
    started.opened.push(watched);
    const { page } = watched;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });

    await signIn(page, origin, admin.email);
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByTestId('security-section').waitFor();
    await page.getByLabel('Require a second factor for everyone in this organisation').click();
    await page.locator('#require-second-factor:checked:enabled').waitFor();

    await page.locator('#passkey-name').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByTestId('passkey-item').filter({ hasText: 'Test laptop' }).waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]?.isResidentCredential).toBe(true);
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.getByTestId('passkeys').screenshot({ path: screenshotPath('portal-passkeys-en') });
    await page.getByRole('button', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'مفاتيح المرور' }).waitFor();
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-passkeys-ar'), fullPage: true });
    await page.getByRole('button', { name: 'English' }).click();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/portal\/sign-in/);
    await page.screenshot({ path: screenshotPath('portal-passkey-sign-in-en'), fullPage: true });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('nav.sections').waitFor();
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after.credentials[0]?.signCount).toBeGreaterThan(0);

    // The password, then the passkey as the second step.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/portal\/sign-in/);
    await page.locator('#sign-in-email').fill(admin.email);
    await page.locator('#sign-in-password').fill(PASSWORD);
    await page.locator('form.sign-in-card button[type=submit]').click();
    await page.getByTestId('second-step-form').waitFor();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.locator('nav.sections').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/portal\/sign-in/);
    await page.getByRole('button', { name: 'العربية' }).click();
    await page.getByRole('button', { name: 'تسجيل الدخول بمفتاح مرور' }).waitFor();
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-passkey-sign-in-ar'), fullPage: true });
  }, 180_000);
});
