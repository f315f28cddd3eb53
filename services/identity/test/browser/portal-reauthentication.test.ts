/// <reference lib="dom" />
import { openDatabase } from '@svc/db';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { lowContrastText, unlabelledControls } from '@svc/service-kit/browser-testing';
import { sql } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrationsFolder, schemaName } from '../../src/db/migrations.js';
import { buildPortal, createTenant, launchChromium, openPage, PASSWORD, screenshotPath, signIn, startIdentity, tearDownPortalTest, type IdentityService, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

describeEmbeddedOnly('partner portal: re-authentication asked inline', () => {
  const started: { opened: WatchedPage[]; browser: Browser | undefined; service: IdentityService | undefined; webRoot: string } = { opened: [], browser: undefined, service: undefined, webRoot: '' };
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;

  beforeAll(async () => {
    started.webRoot = buildPortal();
    service = started.service = await startIdentity(started.webRoot);
    admin = await service.whileStopped(() => createTenant(service));
    browser = started.browser = await launchChromium();
  }, 240_000);

  afterAll(() => tearDownPortalTest(started));

  /** Ten minutes pass for every session: written into the embedded database while the service is stopped (it has one owner). */
  const ageSessions = () =>
    service.whileStopped(async () => {
      const database = await openDatabase({ driver: 'pglite', dataDir: service.dataDir, schemaName, migrationsFolder, skipMigrations: true });
      try {
        await database.db.execute(sql`update identity.portal_sessions set authenticated_at = now() - interval '10 minutes'`);
      } finally {
        await database.close();
      }
    });

  it('asks for the password in a modal when the session is not fresh, then finishes the change it interrupted', async () => {
    const watched = await openPage(browser, { width: 1280 });
    started.opened.push(watched);
    const { page } = watched;
    await signIn(page, service.baseUrl, admin.email);
    await ageSessions();
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByTestId('tenant-security').waitFor();

    await page.getByLabel('Require a second factor for everyone in this organisation').click();
    const dialog = page.getByTestId('reauthentication-dialog');
    await dialog.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await dialog.getByLabel('Password').fill('not the password at all');
    await dialog.getByRole('button', { name: 'Confirm and continue' }).click();
    await dialog.getByText('The current password is incorrect.').waitFor();
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-reauthentication-en') });

    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Confirm and continue' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The interrupted request was sent again and went through: the switch shows the saved state.
    await page.locator('#require-second-factor:checked:enabled').waitFor();
    await page.getByTestId('tenant-security').locator('.notice-error').waitFor({ state: 'detached' });

    // Cancelling leaves the refusal on the screen that asked.
    await ageSessions();
    await page.getByLabel('Require a second factor for everyone in this organisation').click();
    await dialog.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('tenant-security').getByText(/given in the last 5 minutes/).waitFor();
    await page.locator('#require-second-factor:checked:enabled').waitFor();
  }, 180_000);
});
