/// <reference lib="dom" />
import { describeEmbeddedOnly } from '@svc/db/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  buildPortal,
  createTenant,
  launchChromium,
  openPage,
  partnerApi,
  runIdentityCli,
  runSandboxCaseToApproval,
  signIn,
  startIdentity,
  tearDownPortalTest,
  type IdentityService,
  type TenantAdmin,
  type WatchedPage,
} from './portal-fixture.js';

describeEmbeddedOnly('portal: retention policy and redaction, in Chromium', () => {
  let webRoot = '';
  let service: IdentityService;
  let browser: Browser;
  let defaults: TenantAdmin;
  let shorter: TenantAdmin;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    webRoot = buildPortal();
    service = await startIdentity(webRoot, { UNDECIDED_RETENTION_DAYS: '5' });
    // One restart for both: the CLI needs the embedded database to itself.
    [defaults, shorter] = await service.whileStopped(async () => {
      const created = [await createTenant(service, { name: 'Default Bank', sandbox: true }), await createTenant(service, { name: 'Short Bank' })] as const;
      await runIdentityCli(service, ['tenant:update', '--id', created[1].tenantId, '--evidence-retention-days', '30']);
      return created;
    });
    browser = await launchChromium();
  }, 240_000);

  afterAll(() => tearDownPortalTest({ opened, browser, service, webRoot }));

  const signedIn = async (admin: TenantAdmin) => {
    const watched = await openPage(browser, { width: 1280 });
    opened.push(watched);
    await signIn(watched.page, service.baseUrl, admin.email, admin.password, '/portal/sign-in?next=%2Fcases');
    await watched.page.waitForURL(/\/portal\/cases$/);
    return watched;
  };
  const policyText = async (admin: TenantAdmin) => {
    const watched = await signedIn(admin);
    const text = await watched.page.getByTestId('retention-policy').textContent();
    expect(await watched.problems()).toEqual([]);
    return text;
  };

  it('shows each tenant its own days for decided cases, and the service-wide days for undecided cases and the audit log', async () => {
    expect(await policyText(defaults)).toBe(
      'Retention: evidence and personal data are redacted 90 days after a case is approved or rejected, and 5 days after it expires, is cancelled or fails. The audit log is kept 5 years.',
    );
    expect(await policyText(shorter)).toContain('redacted 30 days after a case is approved or rejected');
  });

  it('lets a PartnerAdmin redact a decided case; the detail then shows when, and the button is gone', async () => {
    const partner = await partnerApi(service.baseUrl, defaults);
    const { caseId } = await runSandboxCaseToApproval(partner);
    const watched = await signedIn(defaults);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/cases/${caseId}`);
    await page.getByTestId('redact-case').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Redact case' }).click();
    await page.getByTestId('redaction-requested').waitFor();
    // From the request on the files are gone for readers: no preview is even attempted.
    await page.reload();
    await page.getByTestId('evidence-redacted').first().waitFor();
    // The in-process worker runs the job; the detail shows it once done.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByTestId('redacted-at').count();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(1);
    expect(await page.getByTestId('redact-case').count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });
});
