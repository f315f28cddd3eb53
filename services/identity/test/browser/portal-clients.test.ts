/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { unlabelledControls } from '@svc/service-kit/browser-testing';
import { makeCertificate, type TestCertificate } from '../certificates.js';
import {
  API,
  buildPortal,
  createTenant,
  createUser,
  launchChromium,
  openPage,
  partnerApi,
  portalSessionToken,
  removeQuietly,
  screenshotPath,
  signIn,
  startIdentity,
  type IdentityService,
  type TenantAdmin,
  type WatchedPage,
} from './portal-fixture.js';

const DAY = 86_400_000;
// The default PUBLIC_BASE_URL: the metadata's token endpoint, which the curl example must use.
const TOKEN_ENDPOINT = 'https://localhost:8443/api/partner/v1/oauth/token';

describeEmbeddedOnly('partner portal: OAuth clients in Chromium', () => {
  let webRoot = '';
  let scratch = '';
  let service: IdentityService;
  let browser: Browser;
  let admin: TenantAdmin;
  let readOnly: { email: string; password: string };
  let full: TenantAdmin;
  const opened: WatchedPage[] = [];

  async function signedIn(email: string, options: Parameters<typeof openPage>[1] = { width: 1280 }): Promise<WatchedPage> {
    const watched = await openPage(browser, options);
    opened.push(watched);
    await watched.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
    await signIn(watched.page, service.baseUrl, email);
    await watched.page.goto(`${service.baseUrl}/portal/clients`);
    await watched.page.getByTestId('client-count').waitFor();
    return watched;
  }

  function row(page: Page, clientId: string) {
    return page.locator(`tr[data-client-id="${clientId}"]`);
  }

  async function registerThroughApi(email: string, certificate: TestCertificate, clientName: string): Promise<string> {
    const session = await portalSessionToken(service.baseUrl, email);
    const response = await fetch(`${service.baseUrl}${API}/oauth/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ clientName, certificatePem: certificate.certPem }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { clientId: string }).clientId;
  }

  beforeAll(async () => {
    webRoot = buildPortal();
    scratch = mkdtempSync(join(tmpdir(), 'portal-clients-'));
    service = await startIdentity(webRoot);
    [admin, readOnly, full] = await service.whileStopped(async () => {
      const tenant = await createTenant(service, { sandbox: true, name: 'Sandbox Bank' });
      return [tenant, await createUser(service, tenant.tenantId, 'PartnerReadOnly'), await createTenant(service, { name: 'Busy Bank' })] as const;
    });
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    await service?.stop();
    if (service) removeQuietly(service.dataDir);
    removeQuietly(webRoot);
    removeQuietly(scratch);
  });

  it('registers a client from a PEM file, showing the certificate before saving, then the client id and a copyable curl', async () => {
    const watched = await signedIn(admin.email);
    const { page } = watched;
    expect(await page.getByTestId('client-count').textContent()).toBe('0 of 5 active clients');
    expect(await page.getByText('No OAuth clients yet').isVisible()).toBe(true);

    const certificate = await makeCertificate({ cn: 'onboarding.portal-test.example', notAfter: new Date(Date.now() + 365 * DAY) });
    const file = join(scratch, 'client.crt');
    writeFileSync(file, certificate.certPem);
    await page.getByRole('button', { name: 'Register a client' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Onboarding service');
    await page.getByLabel('Or choose the certificate file').setInputFiles(file);
    await expect.poll(() => page.getByLabel('Certificate (PEM)').inputValue()).toBe(certificate.certPem);
    expect(await page.evaluate(unlabelledControls)).toEqual([]);

    await page.getByRole('button', { name: 'Check the certificate' }).click();
    await page.getByTestId('certificate-details').waitFor();
    expect(await page.getByTestId('inspected-thumbprint').textContent()).toBe(certificate.thumbprint);
    expect(await page.getByTestId('inspected-subject').textContent()).toContain('CN=onboarding.portal-test.example');
    // Inspecting stored nothing.
    const session = await portalSessionToken(service.baseUrl, admin.email);
    const before = await fetch(`${service.baseUrl}${API}/oauth/clients`, { headers: { authorization: `Bearer ${session}` } });
    expect(await before.json()).toEqual([]);

    await page.getByRole('button', { name: 'Register this client' }).click();
    const clientId = (await page.getByTestId('new-client-id').textContent()) ?? '';
    expect(clientId).toMatch(/^svc_[0-9a-f]{32}$/);
    const curl = (await page.getByTestId('curl-example').textContent()) ?? '';
    expect(curl).toBe(`curl --cert client.crt --key client.key \\\n  -d grant_type=client_credentials \\\n  -d client_id=${clientId} \\\n  ${TOKEN_ENDPOINT}`);
    await page.getByRole('button', { name: 'Copy the command' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(curl);

    await row(page, clientId).waitFor();
    const thumbprintCell = row(page, clientId).locator(`[title="${certificate.thumbprint}"]`);
    expect(await thumbprintCell.textContent()).toBe(`${certificate.thumbprint.slice(0, 8)}…${certificate.thumbprint.slice(-8)}`);
    expect(await row(page, clientId).textContent()).toContain('Never');
    expect(await row(page, clientId).locator('[data-status=active]').count()).toBe(1);
    expect(await page.getByTestId('client-count').textContent()).toBe('1 of 5 active clients');
    await page.getByRole('button', { name: 'Copy the thumbprint of Onboarding service' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(certificate.thumbprint);
    await page.screenshot({ path: screenshotPath('portal-clients-en'), fullPage: true });

    await page.getByRole('button', { name: 'العربية' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('عملاء OAuth');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-clients-ar'), fullPage: true });
    expect(await watched.problems()).toEqual([]);
  });

  it('keeps a private key in the browser and shows the server\'s reason for an expired certificate', async () => {
    const watched = await signedIn(admin.email, { width: 1280, ignoreConsole: /status of 400/ });
    const { page } = watched;
    const sent: string[] = [];
    page.on('request', (request) => sent.push(request.url()));
    const key = await makeCertificate();
    await page.getByRole('button', { name: 'Register a client' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Leaky');
    await page.getByLabel('Certificate (PEM)').fill(key.keyPem);
    await page.getByRole('button', { name: 'Check the certificate' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This is a private key');
    expect(sent.filter((url) => url.includes('/portal/certificates/inspect'))).toEqual([]);

    const expired = await makeCertificate({ notBefore: new Date(Date.now() - 60 * DAY), notAfter: new Date(Date.now() - DAY) });
    await page.getByLabel('Certificate (PEM)').fill(expired.certPem);
    await page.getByRole('button', { name: 'Check the certificate' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/expired/i);
    expect(await page.getByTestId('certificate-details').count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });

  it('revokes a client only after a confirmation that says it is irreversible, and its token stops working', { timeout: 45_000 }, async () => {
    const partner = await partnerApi(service.baseUrl, admin, { clientName: 'Nightly batch' });
    expect((await fetch(`${service.baseUrl}${API}/oauth/clients`, { headers: partner.headers })).status).toBe(200);
    const watched = await signedIn(admin.email);
    const { page } = watched;
    // The token request above counts as a use, written by the service every 10 seconds.
    await expect
      .poll(
        async () => {
          await page.reload();
          return row(page, partner.clientId).locator('td').nth(4).textContent();
        },
        { timeout: 15_000, interval: 1000 },
      )
      .not.toBe('Never');
    await row(page, partner.clientId).getByRole('button', { name: 'Revoke: Nightly batch' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('Revoking is irreversible. Every access token of this client stops working at once');
    // Escape cancels, and nothing changed.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await row(page, partner.clientId).locator('[data-status=active]').count()).toBe(1);

    await row(page, partner.clientId).getByRole('button', { name: 'Revoke: Nightly batch' }).click();
    // The browser moves focus into the modal, to its safe button.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.screenshot({ path: screenshotPath('portal-clients-revoke-en') });
    await dialog.getByRole('button', { name: 'Revoke for good' }).click();
    await expect.poll(() => row(page, partner.clientId).locator('[data-status=revoked]').count()).toBe(1);
    expect(await page.getByRole('status').filter({ hasText: 'Nightly batch was revoked.' }).count()).toBe(1);
    expect(await row(page, partner.clientId).getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    const refused = await fetch(`${service.baseUrl}${API}/oauth/clients`, { headers: partner.headers });
    // The listing route's own answer for a revoked client's token (routes/partner/oauth-clients.ts).
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ detail: expect.stringMatching(/revoked/i) });
    expect(await watched.problems()).toEqual([]);
  });

  it('explains the limit of five active clients and disables registering at five, marking certificates about to expire', async () => {
    for (let index = 1; index <= 5; index += 1) {
      const certificate = await makeCertificate({ cn: `busy-${index}`, notAfter: new Date(Date.now() + (index === 1 ? 10 : 300) * DAY) });
      await registerThroughApi(full.email, certificate, `Backend ${index}`);
    }
    const watched = await signedIn(full.email);
    const { page } = watched;
    expect(await page.getByTestId('client-count').textContent()).toBe('5 of 5 active clients');
    expect(await page.getByTestId('client-limit').textContent()).toContain('the most it may have');
    expect(await page.getByRole('button', { name: 'Register a client' }).isDisabled()).toBe(true);
    expect(await page.locator('tr', { hasText: 'Backend 1' }).locator('[data-status=expiresSoon]').count()).toBe(1);
    expect(await page.locator('tr', { hasText: 'Backend 2' }).locator('[data-status=expiresSoon]').count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });

  it('shows a PartnerReadOnly user everything but no register or revoke button, and the API refuses a revoke from the page', async () => {
    const watched = await signedIn(readOnly.email, { width: 1280, ignoreConsole: /status of 403/ });
    const { page } = watched;
    await page.locator('[data-client-id]').first().waitFor();
    expect(await page.locator('[data-client-id]').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Register a client' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
    expect(await page.getByText('Read-only access').isVisible()).toBe(true);

    const active = await page.locator('tr:has([data-status=active])').first().getAttribute('data-client-id');
    const session = await portalSessionToken(service.baseUrl, admin.email);
    const clients = (await (await fetch(`${service.baseUrl}${API}/oauth/clients`, { headers: { authorization: `Bearer ${session}` } })).json()) as { id: string; clientId: string; isActive: boolean }[];
    const target = clients.find((client) => client.clientId === active)!;
    const answer = await page.evaluate(async (id) => {
      const response = await fetch(`/api/partner/v1/oauth/clients/${id}`, { method: 'DELETE' });
      return { status: response.status, body: (await response.json()) as { code: string } };
    }, target.id);
    expect(answer).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    const after = (await (await fetch(`${service.baseUrl}${API}/oauth/clients`, { headers: { authorization: `Bearer ${session}` } })).json()) as { id: string; isActive: boolean }[];
    expect(after.find((client) => client.id === target.id)?.isActive).toBe(true);
    expect(await watched.problems()).toEqual([]);
  });
});
