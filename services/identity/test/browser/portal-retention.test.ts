/// <reference lib="dom" />
import { describeEmbeddedOnly } from '@svc/db/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildPortal, createTenant, launchChromium, openPage, removeQuietly, runIdentityCli, signIn, startIdentity, type IdentityService, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

describeEmbeddedOnly('portal: the tenant’s retention policy on the cases screen, in Chromium', () => {
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
      const created = [await createTenant(service, { name: 'Default Bank' }), await createTenant(service, { name: 'Short Bank' })] as const;
      await runIdentityCli(service, ['tenant:update', '--id', created[1].tenantId, '--evidence-retention-days', '30']);
      return created;
    });
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    await service?.stop();
    if (service) removeQuietly(service.dataDir);
    removeQuietly(webRoot);
  });

  const policyText = async (admin: TenantAdmin) => {
    const watched = await openPage(browser, { width: 1280 });
    opened.push(watched);
    await signIn(watched.page, service.baseUrl, admin.email, admin.password, '/portal/sign-in?next=%2Fcases');
    await watched.page.waitForURL(/\/portal\/cases$/);
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
});
