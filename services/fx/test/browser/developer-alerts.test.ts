/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSmtpSink, type SmtpSink } from '@svc/mailer/testing';
import { accessibilityViolations } from '@svc/service-kit/browser-testing';
import { verifyFxWebhook } from '@svc/webhook-signing';
import type { ParsedMail } from 'mailparser';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../webhook-receiver.js';
import { postAdmin, removeQuietly } from './browser-fixture.js';
import { callWithKeys, committedScreenshot as screenshot, MAILED_LINKS, signUpByApi, uniqueEmail, useDashboard } from './developer-fixture.js';

// fx as a process on the embedded default, its mail over a real SMTP server on loopback; with
// DATABASE_URL (CI's second pass) the same screens run against the same API, already proven in the first.
const withDatabase = Boolean(process.env.DATABASE_URL);
const GRACE_SECONDS = 30;

describe.skipIf(withDatabase)('fx developer dashboard: rate alerts and key rotation in Chromium', () => {
  let sink: SmtpSink | undefined;
  let caDir = '';
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  const dashboard = useDashboard(async () => {
    receiver = await startReceiver();
    sink = await startSmtpSink();
    // The sink's self-signed certificate, trusted by the fx process as an operator's private CA would be.
    caDir = mkdtempSync(join(tmpdir(), 'fx-smtp-ca-'));
    writeFileSync(join(caDir, 'ca.pem'), sink.certPem);
    return {
      SMTP_URL: sink.url,
      NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem'),
      MAIL_RETRY_SCHEDULE_MS: '0,200',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // One attempt a firing: each crossing while the receiver is down is one failed firing.
      ALERT_RETRY_SCHEDULE_MS: '0',
      ALERT_DELIVERY_TIMEOUT_MS: '5000',
      FX_KEY_ROTATION_GRACE_SECONDS: String(GRACE_SECONDS),
      // The tests post many rates from one IP.
      RATE_LIMIT_ANON_PER_MINUTE: '100000',
    };
  });
  afterAll(async () => {
    await sink?.stop();
    await receiver?.close();
    removeQuietly(caDir);
  });

  const receiverOf = () => {
    if (!receiver) throw new Error('the receiver is not started');
    return receiver;
  };
  const mailsTo = (email: string) => (sink?.messages ?? []).filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.text === email);
  async function mailTo(email: string, matching: (mail: ParsedMail) => boolean): Promise<ParsedMail> {
    await expect.poll(() => mailsTo(email).some(matching), { timeout: 60_000 }).toBe(true);
    return mailsTo(email).find(matching) as ParsedMail;
  }
  /** A verified account, signed in in `page` by its mailed link, on the keys screen with its first key shown. */
  async function signedIn(page: Page, language: 'en' | 'ar') {
    const fx = dashboard.fx();
    const email = uniqueEmail(`alerts-${language}`);
    await signUpByApi(fx.baseUrl, email, language);
    const link = MAILED_LINKS.verify.exec((await mailTo(email, (mail) => /verify#fxv_/.test(mail.text ?? ''))).text ?? '')?.[0] as string;
    await page.goto(link);
    await page.getByTestId('new-key').waitFor();
    return { email, publicKey: (await page.getByTestId('new-public-key').textContent()) ?? '', privateKey: (await page.getByTestId('new-private-key').textContent()) ?? '' };
  }
  /** One MARKET rate with buy = sell = mid, so the watched mid is exactly `mid`. */
  const postMid = (currency: string, mid: number) => postAdmin(dashboard.fx().baseUrl, '/api/v1/admin/rates', { source: 'MARKET', force: true, rates: [{ currency, buy: mid, sell: mid }] });
  const row = (page: Page) => page.getByTestId('alerts').locator('tbody tr').first();
  const health = (page: Page) => row(page).getByTestId('health');
  /** The row's health as the server has it now (the screen shows what it loaded; Refresh loads again). */
  async function refreshedHealth(page: Page, attribute: 'data-failures' | 'data-active' | 'data-last-status') {
    await page.getByRole('button', { name: 'Refresh' }).click();
    return health(page).getAttribute(attribute);
  }

  it('creates a rate alert, sends a signed test, is disabled after 10 failed firings with a mail, and delivers again once re-enabled', async () => {
    const hooks = receiverOf();
    const watched = await dashboard.open({ width: 1280, height: 900 });
    const { page } = watched;
    const { email } = await signedIn(page, 'en');
    await postMid('EUR', 100);

    await page.getByRole('link', { name: 'Rate alerts' }).click();
    expect(new URL(page.url()).pathname).toBe('/en/developers/alerts');
    await page.getByTestId('no-alerts').waitFor();
    // Loopback is allowed here only by configuration (WEBHOOK_ALLOW_PRIVATE_TARGETS); the SSRF guard's refusals are the API's tests.
    const form = page.getByTestId('create-alert');
    await form.getByLabel('Webhook URL (public https://)').fill(hooks.url);
    await form.getByLabel('Currency code').fill('EUR');
    await form.locator('select[name=source]').selectOption('MARKET');
    await form.locator('select[name=alertType]').selectOption({ label: 'rises above a level' });
    await form.getByLabel('Level or percent').fill('110');
    await form.getByLabel('Label (optional)').fill('Euro over 110');
    await form.getByRole('button', { name: 'Create alert' }).click();
    const secret = (await page.getByTestId('signing-secret').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await expect.poll(() => page.getByTestId('alerts').locator('tbody tr').count()).toBe(1);
    expect(await row(page).locator('th').textContent()).toContain('Euro over 110');
    expect(await health(page).getAttribute('data-active')).toBe('true');

    // Send test: a signed rate_alert.test reaches the receiver, and the screen says what it answered.
    await row(page).getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.getByTestId('alerts-notice').textContent()).toMatch(/^Test delivered: the receiver answered 200 in [\d,]+ ms\.$/);
    expect(hooks.received).toHaveLength(1);
    expect(hooks.received[0]?.body.event).toBe('rate_alert.test');
    expect(verifyFxWebhook({ secret, headers: hooks.received[0]!.headers, rawBody: hooks.received[0]!.rawBody })).toMatchObject({ ok: true });

    // The receiver goes away: each crossing is one failed firing, and the tenth disables the webhook.
    await hooks.stop();
    for (let firing = 1; firing <= 10; firing++) {
      await postMid('EUR', 111);
      await expect.poll(() => refreshedHealth(page, 'data-failures'), { timeout: 60_000 }).toBe(String(firing));
      await postMid('EUR', 100);
    }
    expect(await health(page).getAttribute('data-active')).toBe('false');
    expect(await health(page).textContent()).toContain('disabled');
    expect(await health(page).textContent()).toContain('10 failed in a row');
    const disabledMail = await mailTo(email, (mail) => mail.subject === 'Your rate alert webhook was disabled');
    expect(disabledMail.text).toContain(hooks.url);

    // The log: ten failed firings, newest first, then the test.
    await row(page).getByRole('button', { name: 'Delivery log' }).click();
    const log = page.getByTestId('delivery-log');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(11);
    expect(await log.locator('tbody tr').first().getAttribute('data-kind')).toBe('alert');
    expect(await log.locator('tbody tr').first().getAttribute('data-status')).toBe('0');
    expect(await log.locator('tbody tr').last().getAttribute('data-kind')).toBe('test');
    expect(await log.locator('tbody tr').last().getAttribute('data-status')).toBe('200');
    await page.screenshot({ path: screenshot('fx-developers-alerts-en-desktop'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);

    // Back up and re-enabled: the next crossing is delivered, signed.
    await hooks.start();
    await row(page).getByRole('button', { name: 'Re-enable' }).click();
    await expect.poll(() => health(page).getAttribute('data-active')).toBe('true');
    expect(await page.getByTestId('alerts-notice').textContent()).toContain('Re-enabled');
    await postMid('EUR', 112);
    await expect.poll(() => hooks.received.length, { timeout: 60_000 }).toBe(2);
    expect(hooks.received[1]?.body.event).not.toBe('rate_alert.test');
    expect(verifyFxWebhook({ secret, headers: hooks.received[1]!.headers, rawBody: hooks.received[1]!.rawBody })).toMatchObject({ ok: true });
    // The receiver has the body before the worker records its answer: wait for the record, not for the receiver.
    await expect.poll(() => refreshedHealth(page, 'data-last-status'), { timeout: 60_000 }).toBe('200');
    expect(await health(page).getAttribute('data-failures')).toBe('0');
    expect(await watched.problems()).toEqual([]);
  });

  it('rotates a key: the new private key is shown once, the old one works until the grace ends and then gets 401, and the account is mailed', async () => {
    const fx = dashboard.fx();
    const watched = await dashboard.open({ width: 1280, height: 900 });
    const { page } = watched;
    const { email, publicKey, privateKey } = await signedIn(page, 'en');
    await page.reload();
    await page.getByTestId('clients').waitFor();

    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByRole('group', { name: 'Rotate key' }).getByRole('button', { name: 'Rotate key' }).click();
    const newPrivateKey = (await page.getByTestId('rotated-private-key').textContent()) ?? '';
    expect(newPrivateKey).toMatch(/^svc_prv_/);
    expect(newPrivateKey).not.toBe(privateKey);
    const expires = Date.parse((await page.getByTestId('old-key-expires').getAttribute('datetime')) ?? '');
    expect(await page.getByTestId('rotated-key').getByRole('note').textContent()).toContain('shown only this once');
    await page.screenshot({ path: screenshot('fx-developers-rotated-key-en-desktop'), fullPage: true });

    // Both keys work within the grace; the check is only meaningful if it ran before the old key's end.
    const before = Date.now();
    expect((await callWithKeys(fx.baseUrl, '/api/v1/client/me', { publicKey, privateKey })).status).toBe(200);
    expect(before).toBeLessThan(expires);
    expect((await callWithKeys(fx.baseUrl, '/api/v1/client/me', { publicKey, privateKey: newPrivateKey })).status).toBe(200);
    const mail = await mailTo(email, (candidate) => (candidate.text ?? '').includes(publicKey) && !/verify#fxv_/.test(candidate.text ?? ''));
    expect(mail.text).not.toContain(newPrivateKey);

    // Shown once: a reload keeps the key's row, never the new private key.
    await page.reload();
    await page.getByTestId('clients').waitFor();
    expect(await page.content()).not.toContain(newPrivateKey);

    await expect.poll(async () => (await callWithKeys(fx.baseUrl, '/api/v1/client/me', { publicKey, privateKey })).status, { timeout: (GRACE_SECONDS + 60) * 1000, interval: 1000 }).toBe(401);
    expect((await callWithKeys(fx.baseUrl, '/api/v1/client/me', { publicKey, privateKey: newPrivateKey })).status).toBe(200);
    expect(await watched.problems()).toEqual([]);
  });

  it('reads right to left in Arabic at phone size on the rate-alert screen, nothing wider than the phone', async () => {
    const hooks = receiverOf();
    const watched = await dashboard.open({ width: 390, height: 844 });
    const { page } = watched;
    await signedIn(page, 'ar');
    await page.getByRole('link', { name: 'التنبيهات' }).click();
    expect(new URL(page.url()).pathname).toBe('/developers/alerts');
    // The server answers the screen's own address too (a reload, a bookmark).
    await page.reload();
    await page.getByTestId('create-alert').waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    const form = page.getByTestId('create-alert');
    await form.getByLabel('عنوان الويب هوك (https:// عام)').fill(hooks.url);
    await form.getByLabel('رمز العملة').fill('USD');
    await form.getByLabel('المستوى أو النسبة').fill('1.5');
    await form.locator('select[name=alertType]').selectOption('2');
    await form.getByLabel('وصف (اختياري)').fill('الدولار يرتفع');
    await form.getByRole('button', { name: 'إنشاء التنبيه' }).click();
    await page.getByTestId('signing-secret').waitFor();
    await expect.poll(() => page.getByTestId('alerts').locator('tbody tr').count()).toBe(1);
    await row(page).getByRole('button', { name: 'سجل الإرسال' }).click();
    await page.getByTestId('delivery-log').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: screenshot('fx-developers-alerts-ar-phone'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await watched.problems()).toEqual([]);
  });
});
