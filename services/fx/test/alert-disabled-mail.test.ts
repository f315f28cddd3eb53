import { startSmtpSink, type SmtpSink } from '@svc/mailer/testing';
import { eq, sql } from 'drizzle-orm';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiClients } from '../src/db/schema.js';
import { ADMIN_TOKEN } from './helpers.js';
import { buildAlertTestApp, postMid, startReceiver, type AlertTestApp } from './alert-helpers.js';

const FROM = '"Exchange Rates" <no-reply@rates.example.test>';

describe('the "rate alert disabled" mail over a real SMTP server', () => {
  let test: AlertTestApp;
  let sink: SmtpSink;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  // Each test watches its own currency, so tests do not see each other's rates.
  const currencies = ['USD', 'EUR', 'GBP', 'TRY', 'SAR', 'AED'];
  let currency: string;

  beforeAll(async () => {
    sink = await startSmtpSink();
    receiver = await startReceiver();
    test = await buildAlertTestApp({ SMTP_URL: sink.url, MAIL_FROM: FROM, PUBLIC_BASE_URL: 'https://rates.example.test', MAIL_RETRY_SCHEDULE_MS: '0,50' }, { smtpCa: sink.certPem });
  });
  afterAll(async () => {
    await test?.close();
    await receiver?.close();
    await sink?.stop();
  });
  beforeEach(() => {
    currency = currencies.shift() as string;
    receiver.respondWith(500);
  });

  async function clientWith(email: string | undefined, language: string | null) {
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { name: 'Acme rates', plan: 'Enterprise', ...(email ? { email } : {}) } });
    expect(response.statusCode, response.body).toBe(201);
    const keys = response.json<{ id: string; publicKey: string; privateKey: string }>();
    // The dashboard records a developer's language on the clients it makes; the admin API has no field for it.
    if (language) await test.dependencies.database.db.update(apiClients).set({ language }).where(eq(apiClients.id, keys.id));
    return { id: keys.id, headers: { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey } };
  }
  async function post(mid: number) {
    await postMid(test, 'MARKET', currency, mid);
    await test.drain();
  }
  /** An alert whose receiver fails every attempt, fired until the tenth failed firing disables it. */
  async function disabledAlert(client: { headers: Record<string, string> }) {
    await post(100);
    const created = await test.app.inject({ method: 'POST', url: '/api/v1/client/webhooks', headers: client.headers, payload: { webhookUrl: receiver.url, currency, source: 'MARKET', alertType: 0, thresholdValue: 110, label: 'dollar over 110' } });
    expect(created.statusCode, created.body).toBe(201);
    for (let firing = 0; firing < 10; firing++) {
      await post(111);
      await post(100);
    }
    const id = created.json<{ id: string }>().id;
    const listed = (await test.app.inject({ method: 'GET', url: '/api/v1/client/webhooks', headers: client.headers })).json<{ id: string; isActive: boolean }[]>();
    expect(listed.find((alert) => alert.id === id)).toMatchObject({ isActive: false, consecutiveFailures: 10 });
    return id;
  }
  const mailsTo = (to: string) => sink.messages.filter((message) => message.to && !Array.isArray(message.to) && message.to.text === to);
  async function mailTo(to: string): Promise<ParsedMail> {
    await expect
      .poll(async () => {
        await test.app.fxMail.worker.runOnce();
        return mailsTo(to).length;
      }, { timeout: 30_000 })
      .toBeGreaterThan(0);
    return mailsTo(to)[0] as ParsedMail;
  }
  const queuedFor = async (alertId: string) =>
    (await test.dependencies.database.rows<{ n: number }>(sql`select count(*)::int as n from fx.jobs where kind = 'send-mail' and subject_id = ${alertId}`))[0]?.n;

  it('mails the contact address once, in English, with the last status, the URL and the link to the re-enabling call in the API reference, over STARTTLS and AUTH', async () => {
    const to = 'dev-en@example.com';
    const client = await clientWith(to, 'en');
    const alertId = await disabledAlert(client);
    const mail = await mailTo(to);
    expect(mail.from?.value).toEqual([{ address: 'no-reply@rates.example.test', name: 'Exchange Rates' }]);
    expect(mail.subject).toBe('Your rate alert webhook was disabled');
    expect(mail.messageId).toMatch(/^<mail-[0-9a-f-]{36}@rates\.example\.test>$/);
    expect(mail.text).toContain(receiver.url);
    expect(mail.text).toContain('failed 10 times in a row');
    expect(mail.text).toContain('Last status: 500.');
    expect(mail.text).toContain('https://rates.example.test/docs#/client/updateClientWebhook');
    expect(mail.html).toContain('dir="ltr"');
    expect(mail.html).toContain('href="https://rates.example.test/docs#/client/updateClientWebhook"');
    expect(mail.html).not.toMatch(/<img|<script|src=/i);
    expect(sink.sessions.every((session) => session.secure)).toBe(true);

    // Further firings of a disabled alert do not happen, so no second mail is queued.
    await post(111);
    await post(100);
    expect(await queuedFor(alertId)).toBe(1);
    await test.app.fxMail.worker.runOnce();
    expect(mailsTo(to)).toHaveLength(1);
    // The link leads to a page (the API reference), and what the mail asks for works: the API's PUT
    // re-enables the alert and clears its failures.
    const reference = await test.app.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(reference.statusCode);
    const reEnabled = await test.app.inject({ method: 'PUT', url: `/api/v1/client/webhooks/${alertId}`, headers: client.headers, payload: { isActive: true } });
    expect(reEnabled.statusCode, reEnabled.body).toBe(200);
    expect(reEnabled.json()).toMatchObject({ id: alertId, isActive: true, consecutiveFailures: 0 });
  });

  it('writes in Arabic (fx default, right to left) when the client has no language, and right to left in Sorani (ku)', async () => {
    await disabledAlert(await clientWith('dev-ar@example.com', null));
    const arabic = await mailTo('dev-ar@example.com');
    expect(arabic.subject).toBe('تم تعطيل webhook تنبيه السعر');
    expect(arabic.html).toContain('dir="rtl"');
    expect(arabic.text).toContain('https://rates.example.test/docs#/client/updateClientWebhook');
    expect(arabic.headers.get('content-language')).toBe('ar');

    currency = currencies.shift() as string;
    await disabledAlert(await clientWith('dev-ku@example.com', 'ku'));
    const sorani = await mailTo('dev-ku@example.com');
    expect(sorani.html).toContain('dir="rtl"');
    expect(sorani.text).toContain('https://rates.example.test/docs#/client/updateClientWebhook');
  });

  it('queues nothing for a client without a contact address', async () => {
    const alertId = await disabledAlert(await clientWith(undefined, 'en'));
    expect(await queuedFor(alertId)).toBe(0);
  });

  it('reports mail degraded with the backlog while SMTP is down, and sends the waiting mail once it is back', async () => {
    const to = 'dev-outage@example.com';
    await sink.stop();
    try {
      await disabledAlert(await clientWith(to, 'en'));
      await test.app.fxMail.worker.runOnce();
      const health = (await test.app.inject({ method: 'GET', url: '/api/v1/health' })).json<{ status: string; checks: { mail: Record<string, unknown> } }>();
      expect(health.status).not.toBe('ok');
      expect(health.checks.mail).toMatchObject({ transport: 'smtp', queued: 1, retrying: 1 });
      expect(health.checks.mail.oldestQueuedAt).toEqual(expect.any(String));
    } finally {
      await sink.start();
    }
    await mailTo(to);
    expect(mailsTo(to)).toHaveLength(1);
    const health = (await test.app.inject({ method: 'GET', url: '/api/v1/health' })).json<{ checks: { mail: Record<string, unknown> } }>();
    expect(health.checks.mail).toMatchObject({ transport: 'smtp', queued: 0, retrying: 0, oldestQueuedAt: null });
  });
});
