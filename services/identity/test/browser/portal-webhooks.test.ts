/// <reference lib="dom" />
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhooks/webhook-events.js';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { unlabelledControls } from '@svc/service-kit/browser-testing';
import { findFreePort } from '@svc/service-kit/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSignedReceiver, verifyStandard } from '../fixtures/signed-receiver.js';
import { buildPortal, createTenant, createUser, launchChromium, openPage, screenshotPath, signIn, startIdentity, tearDownPortalTest, type IdentityService, type WatchedPage } from './portal-fixture.js';

type Receiver = Awaited<ReturnType<typeof startSignedReceiver>>;

const SECRET = /^whsec_\S+$/;
// A secret as issued before Standard Webhooks support (base64url, no padding) and its standard form.
const EARLIER_SECRET = 'whsec_-_8AAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHx8';
const EARLIER_SECRET_STANDARD = 'whsec_+/8AAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHx8=';

/** How long the recovery form stands open before it is used. */
const PAGE_OPEN_FOR_MS = 5 * 60_000;

describeEmbeddedOnly('portal webhooks screens in Chromium', () => {
  let webRoot = '';
  let service: IdentityService;
  let browser: Browser;
  let receiver: Receiver;
  let admin: { email: string; password: string };
  let readOnly: { email: string; password: string };
  const opened: WatchedPage[] = [];
  let hookNumber = 0;

  beforeAll(async () => {
    webRoot = buildPortal();
    // The fixture allows private targets: the receiver is this test's own server on 127.0.0.1.
    service = await startIdentity(webRoot);
    const tenant = await createTenant(service, { sandbox: true });
    admin = tenant;
    readOnly = await createUser(service, tenant.tenantId, 'PartnerReadOnly');
    [browser, receiver] = await Promise.all([launchChromium(), startSignedReceiver()]);
  }, 180_000);

  afterAll(() => tearDownPortalTest({ opened, browser, service, webRoot }, { servers: [receiver] }));

  async function signedIn(who: { email: string; password: string }, options: Parameters<typeof openPage>[1] = { width: 1280 }): Promise<WatchedPage> {
    const watched = await openPage(browser, options);
    opened.push(watched);
    await signIn(watched.page, service.baseUrl, who.email, who.password);
    return watched;
  }

  /** Registers an endpoint through the form; returns its id, receiver path and the secret the screen showed. */
  async function registerEndpoint(page: Page, eventTypes?: string[]) {
    const path = `/hook-${++hookNumber}`;
    await page.goto(`${service.baseUrl}/portal/webhooks`);
    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url(path));
    if (eventTypes) {
      await page.getByRole('button', { name: 'Clear' }).click();
      for (const type of eventTypes) await page.locator(`input[value="${type}"]`).check();
    }
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret-value').textContent()) ?? '';
    expect(secret).toMatch(SECRET);
    receiver.trust(path, secret);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByTestId('webhook-detail').waitFor();
    const id = (await page.getByTestId('webhook-detail').getAttribute('data-endpoint-id')) ?? '';
    return { id, path, secret };
  }

  const deliveryRows = (page: Page) => page.locator('[data-testid="delivery-log"] tbody tr');

  it('registers an endpoint, shows its secret once, rotates it, and a test ping signed with the new secret arrives and is logged as delivered', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/webhooks`);
    await page.getByText('No webhook endpoints yet.').waitFor();

    const { id, path, secret } = await registerEndpoint(page);
    expect(new URL(page.url()).pathname).toBe(`/portal/webhooks/${id}`);
    // Once: after the panel is dismissed the secret is nowhere in the page, nor after a reload.
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.getByTestId('webhook-facts').waitFor();
    // (The screen names the whsec_ prefix in its converter's label, but shows no secret.)
    expect(await page.content()).not.toMatch(/whsec_[A-Za-z0-9+/_-]{20}/);
    expect(await page.getByTestId('webhook-event-types').locator('li').count()).toBe(WEBHOOK_EVENT_TYPES.length);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('the current one stops signing at once', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.getByTestId('webhook-secret-value').textContent()) ?? '';
    expect(rotated).toMatch(SECRET);
    expect(rotated).not.toBe(secret);
    await page.getByTestId('webhook-secret').getByText('will not be shown again', { exact: false }).waitFor();
    receiver.trust(path, rotated);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);

    await page.getByRole('button', { name: 'Send test ping' }).click();
    await expect.poll(() => receiver.at(path).length, { timeout: 15_000 }).toBe(1);
    const [ping] = receiver.at(path);
    expect(ping?.body.eventType).toBe('webhook.test');
    expect(ping?.verification.ok).toBe(true);
    // The log polls while the delivery is unfinished, so it turns delivered by itself.
    const row = deliveryRows(page).first();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('succeeded');
    expect(await row.locator('[data-column="succeeded"]').textContent()).toBe('Yes');
    expect(await row.locator('[data-column="http-status"]').textContent()).toBe('204');
    expect(await row.locator('[data-column="attempts"]').textContent()).toBe('1');
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await watched.problems()).toEqual([]);
  });

  it('converts an earlier secret in the page without sending it, and rotates keeping the old secret valid for 24 hours (screenshots)', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    const sent: string[] = [];
    page.on('request', (request) => sent.push(`${request.url()} ${request.postData() ?? ''}`));
    const { id, path, secret } = await registerEndpoint(page);

    const pasted = page.getByLabel('Secret you hold (whsec_…)');
    await pasted.fill(`${EARLIER_SECRET}\n`);
    expect(await page.getByTestId('standard-secret-value').textContent()).toBe(EARLIER_SECRET_STANDARD);
    await pasted.fill('whsec_not base64!');
    await page.getByTestId('standard-secret').getByRole('alert').filter({ hasText: 'not a signing secret' }).waitFor();
    await pasted.fill(secret);
    await page.getByText('already in the standard form').waitFor();
    expect(sent.filter((line) => line.includes(EARLIER_SECRET.slice(8)) || line.includes(secret.slice(8)))).toEqual([]);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByLabel('Invalidate the old secret now').isChecked()).toBe(true);
    await dialog.getByLabel('Keep the old secret valid for').check();
    await dialog.getByLabel('How long the old secret stays valid').selectOption({ label: '24 hours' });
    await dialog.getByText('keeps signing the webhook-signature header for the time chosen', { exact: false }).waitFor();
    const rotation = page.waitForRequest((request) => request.url().endsWith(`/webhooks/${id}/rotate-secret`));
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    expect((await rotation).postDataJSON()).toEqual({ previousSecretValidSeconds: 86_400 });
    const rotated = (await page.getByTestId('webhook-secret-value').textContent()) ?? '';
    expect(rotated).toMatch(SECRET);
    await page.getByTestId('webhook-secret-standard').getByText('works as it is with the Standard Webhooks libraries', { exact: false }).waitFor();
    await page.getByTestId('previous-secret-expires').getByText('keeps signing the webhook-signature header until', { exact: false }).waitFor();

    // While the grace window lasts, a delivery verifies with the new secret and with the old one.
    receiver.trust(path, rotated);
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await expect.poll(() => receiver.at(path).length, { timeout: 15_000 }).toBe(1);
    const [ping] = receiver.at(path);
    expect(ping?.verification.ok).toBe(true);
    expect(ping?.standard.ok).toBe(true);
    expect(ping && verifyStandard(secret, ping).ok).toBe(true);
    await pasted.fill(EARLIER_SECRET);
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-webhooks-standard-en'), fullPage: true });

    await page.getByRole('button', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'صيغة Standard Webhooks لسر صادر سابقًا' }).waitFor();
    expect(await page.getByTestId('previous-secret-expires').textContent()).toContain('يبقى السر السابق يوقّع');
    expect(await page.getByTestId('standard-secret-value').textContent()).toBe(EARLIER_SECRET_STANDARD);
    await page.getByRole('button', { name: 'تغيير السر' }).click();
    await dialog.getByLabel('إبقاء السر القديم صالحًا لمدة').check();
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-webhooks-rotate-ar') });
    await page.keyboard.press('Escape');
    expect(await watched.problems()).toEqual([]);
  });

  it('retries a failed delivery from the log, and recovers the failed deliveries of a time window', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    // The page opens five minutes "early" and the clock is moved on before the recovery: as if the
    // page had stood open while the failures happened, which a busy machine did by crossing a minute.
    await page.clock.install({ time: new Date(Date.now() - PAGE_OPEN_FOR_MS) });
    const { path } = await registerEndpoint(page, ['verification.approved']);
    let answer = 500;
    receiver.answer(path, () => ({ status: answer }));

    // A test ping gets one attempt: a 500 makes it failed at once.
    await page.getByRole('button', { name: 'Send test ping' }).click();
    const row = deliveryRows(page).first();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('failed');
    expect(await row.locator('[data-column="http-status"]').textContent()).toBe('500');
    expect(await row.locator('[data-column="succeeded"]').textContent()).toBe('No');

    answer = 204;
    await row.getByRole('button', { name: /^Retry/ }).click();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('succeeded');
    expect(await row.locator('[data-column="attempts"]').textContent()).toBe('2');
    expect(receiver.at(path)).toHaveLength(2);
    // The same delivery was sent again (receivers dedupe on its id).
    expect(new Set(receiver.at(path).map((receipt) => receipt.headers['x-service-delivery-id'])).size).toBe(1);

    // The outcome filter asks the API for failed ones only: none now.
    await page.getByLabel('Outcome').selectOption('false');
    await expect.poll(() => new URL(page.url()).searchParams.get('outcome')).toBe('false');
    await page.getByText('No deliveries match.').waitFor();
    await page.getByLabel('Outcome').selectOption('');

    // Two more failures, then the receiver is back: recovering the window sends both again.
    answer = 503;
    for (const failures of [1, 2]) {
      await page.getByRole('button', { name: 'Send test ping' }).click();
      await expect.poll(() => page.locator('[data-testid="delivery-log"] tbody tr[data-status="failed"]').count(), { timeout: 15_000 }).toBe(failures);
    }
    answer = 204;
    await page.clock.fastForward(PAGE_OPEN_FOR_MS);
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await expect.poll(() => page.getByTestId('recover-result').textContent()).toBe('Failed deliveries queued again: 2.');
    await expect.poll(() => page.locator('[data-testid="delivery-log"] tbody tr[data-status="succeeded"]').count(), { timeout: 15_000 }).toBe(3);
    expect(await watched.problems()).toEqual([]);
  });

  it('edits the URL and event types, pauses and resumes, and deletes only after a confirmation', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    const { id } = await registerEndpoint(page, ['verification.approved', 'verification.rejected']);
    expect(await page.getByTestId('webhook-event-types').locator('li').count()).toBe(2);

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const newUrl = receiver.url(`/edited-${id}`);
    await page.getByLabel('Endpoint URL').fill(newUrl);
    await page.locator('input[value="verification.expired"]').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    expect(await page.getByTestId('webhook-url').textContent()).toBe(newUrl);
    expect(await page.getByTestId('webhook-event-types').locator('code').allTextContents()).toEqual(['verification.approved', 'verification.rejected', 'verification.expired']);

    // Nothing listens on that port: the ping gets no answer, and the log says why.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${await findFreePort()}/closed`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    await page.getByRole('button', { name: 'Send test ping' }).click();
    const row = page.locator('[data-testid="delivery-log"] tbody tr').first();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('failed');
    expect(await row.locator('[data-column="http-status"]').textContent()).toBe('no answer');
    expect(await row.locator('[data-column="last-error"]').textContent()).toContain('ECONNREFUSED');

    // None ticked is refused before any request.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Choose at least one event type.').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByText('This endpoint is paused', { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Send test ping' }).isDisabled()).toBe(true);
    await page.goto(`${service.baseUrl}/portal/webhooks`);
    expect(await page.locator(`tr[data-endpoint-id="${id}"] [data-state]`).textContent()).toBe('Paused');
    await page.locator(`tr[data-endpoint-id="${id}"] a`).click();
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Endpoint activated', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('This cannot be undone', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(new URL(page.url()).pathname).toBe(`/portal/webhooks/${id}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/portal/webhooks');
    await page.getByTestId('webhook-list').waitFor();
    expect(await page.locator(`tr[data-endpoint-id="${id}"]`).count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });

  it("shows the API's reason when it refuses a URL, and keeps the form filled", async () => {
    const watched = await signedIn(admin, { width: 1280, ignoreConsole: /status of 400/ });
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/webhooks/new`);
    const refused = 'http://user:secret@127.0.0.1:9/hook';
    await page.getByLabel('Endpoint URL').fill(refused);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'must not contain credentials' }).waitFor();
    expect(await page.getByLabel('Endpoint URL').inputValue()).toBe(refused);
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });

  it('lets the read-only role see endpoints and their log, without any control that changes them', async () => {
    const watched = await signedIn(readOnly);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/webhooks`);
    await page.locator('.read-only-note').waitFor();
    expect(await page.getByRole('link', { name: 'Add endpoint' }).count()).toBe(0);
    await page.locator('[data-testid="webhook-list"] tbody tr a').first().click();
    await page.getByTestId('delivery-log').waitFor();
    await expect.poll(() => deliveryRows(page).count()).toBeGreaterThan(0);
    for (const name of ['Send test ping', 'Edit', 'Rotate secret', 'Delete', 'Recover failed deliveries']) expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Retry/ }).count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });

  it('renders the endpoint and its log in English and in Arabic, right to left (screenshots)', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    const { path } = await registerEndpoint(page, ['verification.approved', 'verification.rejected', 'verification.cancelled']);
    // One failed ping (with its Retry button) and one delivered, so the log shows both.
    let answer = 500;
    receiver.answer(path, () => ({ status: answer }));
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await expect.poll(() => deliveryRows(page).first().getAttribute('data-status'), { timeout: 15_000 }).toBe('failed');
    answer = 204;
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await expect.poll(() => page.locator('[data-testid="delivery-log"] tbody tr[data-status="succeeded"]').count(), { timeout: 15_000 }).toBe(1);
    await page.getByText('Test ping queued', { exact: false }).waitFor();
    await page.screenshot({ path: screenshotPath('portal-webhooks-en'), fullPage: true });

    await page.getByRole('button', { name: 'العربية' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.getByRole('heading', { name: 'سجل الإرسال' }).waitFor();
    expect(await page.getByRole('button', { name: 'إرسال تجربة' }).count()).toBe(1);
    // What was announced before the switch is said again in Arabic, not left in English.
    expect(await page.getByTestId('webhook-notice').textContent()).toContain('أُضيفت رسالة التجربة');
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-webhooks-ar'), fullPage: true });
    expect(await watched.problems()).toEqual([]);
  });
});
