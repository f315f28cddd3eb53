/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { lowContrastText, unlabelledControls } from '@svc/service-kit/browser-testing';
import { buildPortal, createTenant, launchChromium, openPage, screenshotPath, signIn, startIdentity, tearDownPortalTest, type IdentityService, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

// The last admin's refusal (409) and a used invitation (410): Chromium logs both as failed loads.
const REFUSED_LOAD = /Failed to load resource: the server responded with a status of (409|410)/;
const COLLEAGUE_PASSWORD = 'a colleague passphrase 77';

describeEmbeddedOnly('partner portal: team management in Chromium', () => {
  const started: { opened: WatchedPage[]; browser: Browser | undefined; service: IdentityService | undefined; webRoot: string } = { opened: [], browser: undefined, service: undefined, webRoot: '' };
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;

  /** Each page is a browser context of its own: its own cookies, as a second browser window would be. */
  async function open(): Promise<WatchedPage> {
    const watched = await openPage(browser, { width: 1280, ignoreConsole: REFUSED_LOAD });
    started.opened.push(watched);
    return watched;
  }

  /** The invitation link points at PUBLIC_BASE_URL; the test's service listens elsewhere, so keep the path and fragment. */
  const onThisService = (link: string) => {
    const url = new URL(link);
    return `${service.baseUrl}${url.pathname}${url.hash}`;
  };

  async function invite(page: Page, email: string, role: 'Read-only' | 'Admin'): Promise<string> {
    await page.locator('#invite-email').fill(email);
    await page.locator('#invite-role').selectOption({ label: role });
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.getByTestId('invitation-link').waitFor();
    return page.locator('#invitation-url').inputValue();
  }

  beforeAll(async () => {
    started.webRoot = buildPortal();
    service = started.service = await startIdentity(started.webRoot);
    admin = await service.whileStopped(() => createTenant(service, { name: 'Team Bank' }));
    browser = started.browser = await launchChromium();
  }, 240_000);

  afterAll(() => tearDownPortalTest(started));

  it('an admin invites a read-only colleague, who accepts in a second browser and sees no Team entry; the last admin cannot be disabled', async () => {
    const adminWindow = await open();
    const { page } = adminWindow;
    await signIn(page, service.baseUrl, admin.email);
    await page.getByRole('link', { name: 'Team' }).click();
    await page.waitForURL(`${service.baseUrl}/portal/team`);
    await page.getByTestId('members-table').waitFor();

    const colleagueEmail = `support-${randomUUID().slice(0, 8)}@example.com`;
    const link = await invite(page, colleagueEmail, 'Read-only');
    expect(link).toMatch(/\/portal\/invitations#svc_inv_[A-Za-z0-9_-]+$/);
    await page.getByTestId('invitations-table').locator(`tr[data-email="${colleagueEmail}"]`).waitFor();
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-team-invited-en'), fullPage: true });

    // The colleague opens the link in a browser of their own: no session there.
    const colleagueWindow = await open();
    const colleague = colleagueWindow.page;
    await colleague.goto(onThisService(link));
    await colleague.getByRole('heading', { name: 'Join Team Bank' }).waitFor();
    await colleague.getByText('as a read-only user').waitFor();
    expect(await colleague.locator('#invitation-email').inputValue()).toBe(colleagueEmail);
    expect(await colleague.evaluate(unlabelledControls)).toEqual([]);
    expect(await colleague.evaluate(lowContrastText)).toEqual([]);
    await colleague.screenshot({ path: screenshotPath('portal-invitation-en'), fullPage: true });
    await colleague.locator('#invitation-password').fill(COLLEAGUE_PASSWORD);
    await colleague.getByRole('button', { name: 'Create account and sign in' }).click();
    await colleague.waitForURL(`${service.baseUrl}/portal/cases`);
    await colleague.locator('nav.sections').waitFor();
    expect(await colleague.getByTestId('user-email').textContent()).toBe(colleagueEmail);
    await colleague.getByRole('link', { name: 'Reports' }).waitFor();
    expect(await colleague.locator('nav.sections').getByRole('link', { name: 'Team' }).count()).toBe(0);
    await colleague.goto(`${service.baseUrl}/portal/team`);
    await colleague.getByRole('heading', { name: 'Page not found' }).waitFor();

    // The link worked once: opened again, it explains why it no longer does.
    const again = await open();
    await again.page.goto(onThisService(link));
    await again.page.locator('[data-testid=invitation-unusable][data-code=INVITATION_USED]').waitFor();
    await again.page.getByText('The invitation has already been accepted.').waitFor();

    // Back with the admin: the colleague is a user now, and the only admin cannot disable themselves.
    await page.reload();
    const colleagueRow = page.getByTestId('members-table').locator(`tr[data-email="${colleagueEmail}"]`);
    await colleagueRow.waitFor();
    expect(await colleagueRow.textContent()).toContain('Read-only');
    await expect.poll(() => page.getByTestId('invitations-table').count()).toBe(0);
    await page.getByTestId('members-table').locator(`tr[data-email="${admin.email}"]`).getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await page.locator('[data-code=LAST_ADMIN]').waitFor();
    await page.getByText('This is the last active admin of your organisation.').waitFor();
    expect(await page.getByTestId('members-table').locator(`tr[data-email="${admin.email}"]`).getAttribute('data-status')).toBe('active');
    await page.screenshot({ path: screenshotPath('portal-team-en'), fullPage: true });

    await page.getByRole('button', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'الفريق' }).waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-team-ar'), fullPage: true });

    // A second invitation, opened in Arabic and left pending.
    await page.getByRole('button', { name: 'English' }).click();
    const second = await invite(page, `analyst-${randomUUID().slice(0, 8)}@example.com`, 'Admin');
    const arabicWindow = await open();
    await arabicWindow.page.goto(onThisService(second));
    await arabicWindow.page.getByRole('heading', { name: 'Join Team Bank' }).waitFor();
    await arabicWindow.page.getByRole('button', { name: 'العربية' }).click();
    await arabicWindow.page.getByRole('heading', { name: 'انضم إلى Team Bank' }).waitFor();
    expect(await arabicWindow.page.locator('html').getAttribute('dir')).toBe('rtl');
    await arabicWindow.page.screenshot({ path: screenshotPath('portal-invitation-ar'), fullPage: true });
    for (const watched of [adminWindow, colleagueWindow, again, arabicWindow]) expect(await watched.problems()).toEqual([]);
  }, 180_000);
});
