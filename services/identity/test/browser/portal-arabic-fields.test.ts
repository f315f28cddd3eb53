/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { createTenant, buildPortal, launchChromium, openPage, partnerApi, runSandboxCase, screenshotPath, signIn, startIdentity, tearDownPortalTest, type IdentityService, type PartnerApi, type TenantAdmin, type WatchedPage } from './portal-fixture.js';

// A sandbox national ID case answers like the Arabic reader: some Arabic fields, two left to confirm.
describeEmbeddedOnly('a national ID case read in Arabic, in the portal', () => {
  let webRoot = '';
  let service: IdentityService | undefined;
  let admin: TenantAdmin;
  let partner: PartnerApi;
  let browser: Browser | undefined;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    webRoot = buildPortal();
    service = await startIdentity(webRoot);
    admin = await createTenant(service, { sandbox: true, name: 'Damascus Bank' });
    partner = await partnerApi(service.baseUrl, admin);
    browser = await launchChromium();
  }, 300_000);
  afterAll(() => tearDownPortalTest({ opened, browser, service, webRoot }));

  it('shows the Arabic fields right to left, marks the ones to confirm, and a correction confirms one', async () => {
    const { caseId } = await runSandboxCase(partner, { documentType: 'SyrianNationalId', externalReference: 'ARABIC#review', until: ['PendingManualReview'] });
    const watched = await openPage(browser!, { width: 1280 });
    opened.push(watched);
    const { page } = watched;
    await signIn(page, service!.baseUrl, admin.email);
    await page.goto(`${service!.baseUrl}/portal/cases/${caseId}`);
    await page.getByRole('button', { name: 'العربية' }).click();
    const row = (field: string) => page.locator(`[data-testid=ocr-fields] tr[data-field=${field}]`);
    await row('firstNameAr').waitFor();
    expect(await row('firstNameAr').locator('td bdi').getAttribute('dir')).toBe('rtl');
    expect(await row('firstNameAr').locator('td').textContent()).toBe('سامر');
    expect(await row('dateOfBirth').locator('td bdi').getAttribute('dir')).toBe('auto');
    // The list is no field of its own; each field to confirm is a row marked in the page's language.
    expect(await row('fieldsToConfirm').count()).toBe(0);
    expect(await row('fatherNameAr').locator('th .badge').textContent()).toBe('للتأكيد');
    expect(await row('civilRegistryAr').locator('th .badge').textContent()).toBe('للتأكيد');
    expect(await row('firstNameAr').locator('th .badge').count()).toBe(0);
    expect(await page.getByTestId('ocr-to-confirm').textContent()).toContain('2');
    await page.screenshot({ path: screenshotPath('portal-arabic-fields-ar'), fullPage: true });

    await page.getByTestId('ocr-correct').click();
    const input = page.locator('#ocr-fatherNameAr');
    expect(await input.getAttribute('dir')).toBe('rtl');
    await input.fill('خالد');
    await page.locator('[data-testid=ocr-form] button[type=submit]').click();
    await expect.poll(() => row('fatherNameAr').locator('td').textContent()).toBe('خالد');
    expect(await row('fatherNameAr').locator('th .badge').count()).toBe(0);
    const stored = await partner.call<{ ocrResult: { fieldsToConfirm: string[]; extractedFieldsJson: string } }>('GET', `/verifications/${caseId}`);
    expect(stored.ocrResult.fieldsToConfirm).toEqual(['civilRegistryAr']);
    expect(JSON.parse(stored.ocrResult.extractedFieldsJson)).toMatchObject({ fatherNameAr: 'خالد', fieldsToConfirm: 'civilRegistryAr' });
    expect(await watched.problems()).toEqual([]);
  });
});
