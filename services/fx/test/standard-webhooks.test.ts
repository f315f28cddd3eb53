import { generateSigningSecret, verifyFxWebhook } from '@svc/webhook-signing';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { rateAlerts } from '../src/db/schema.js';
import { buildAlertTestApp, createClient, postMid, startReceiver, type AlertTestApp, type ReceivedWebhook } from './alert-helpers.js';
import { manualClock } from './helpers.js';

const STANDARD_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** What a receiver using the standardwebhooks package does with the raw bytes: 'ok', or the message it refuses with. */
function standardCheck(secret: string, webhook: Pick<ReceivedWebhook, 'headers' | 'rawBody'>): string {
  try {
    new Webhook(secret).verify(webhook.rawBody, webhook.headers as Record<string, string>);
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}
const specCheck = (secret: string, webhook: ReceivedWebhook) => verifyFxWebhook({ secret, headers: webhook.headers, rawBody: webhook.rawBody });

describe('fx rate-alert deliveries carry Standard Webhooks headers beside the spec headers', () => {
  const clock = manualClock(new Date().toISOString());
  let test: AlertTestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let client: Awaited<ReturnType<typeof createClient>>;
  const currencies = ['USD', 'EUR', 'GBP', 'TRY', 'SAR', 'AED', 'JOD', 'EGP', 'CHF', 'CAD'];
  let currency: string;

  beforeAll(async () => {
    test = await buildAlertTestApp({}, { clock: clock.now });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await test.close();
  });
  beforeEach(async () => {
    currency = currencies.shift()!;
    client = await createClient(test, 'Enterprise');
    receiver.received.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  const call = (method: 'POST', url: string, payload?: unknown) =>
    test.app.inject({ method, url, headers: client.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function createAlert(alertType: number, thresholdValue: number) {
    const response = await call('POST', '/api/v1/client/webhooks', { webhookUrl: receiver.url, currency, source: 'MARKET', alertType, thresholdValue });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string; signingSecret: string }>();
  }
  async function post(mid: number) {
    await postMid(test, 'MARKET', currency, mid);
    await test.drain();
  }
  /** An ABOVE 110 alert that fires on each crossing; returns the delivery of the next crossing. */
  async function crossing(): Promise<ReceivedWebhook> {
    const before = receiver.received.length;
    await post(100);
    await post(120);
    expect(receiver.received).toHaveLength(before + 1);
    return receiver.received.at(-1)!;
  }

  it('verifies a delivery of each of the four alert types with the standardwebhooks package and with X-Service-Signature-256', async () => {
    await post(100);
    const alerts = [await createAlert(0, 110), await createAlert(1, 90), await createAlert(2, 5), await createAlert(3, 5)];
    for (const alert of alerts) expect(alert.signingSecret).toMatch(STANDARD_SECRET);
    await post(120); // ABOVE and CHANGE_INCREASE fire
    await post(80); // BELOW and CHANGE_DECREASE fire
    expect(receiver.received.map((webhook) => webhook.body.alertType).sort()).toEqual(['ABOVE', 'BELOW', 'CHANGE_DECREASE', 'CHANGE_INCREASE']);
    for (const webhook of receiver.received) {
      const { signingSecret } = alerts.find((alert) => alert.id === webhook.body.webhookId)!;
      expect(standardCheck(signingSecret, webhook)).toBe('ok');
      expect(specCheck(signingSecret, webhook)).toMatchObject({ ok: true });
      expect(webhook.headers['webhook-id']).toBe(webhook.headers['x-service-delivery-id']);
      expect(webhook.headers['webhook-timestamp']).toBe(webhook.headers['x-service-timestamp']);
      expect(webhook.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(webhook.headers).toMatchObject({ 'x-service-signature-version': '2', 'x-service-event': 'rate_alert', 'x-service-signature-256': expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
  });

  it('refuses a tampered body, a wrong secret and an old timestamp, by both schemes', async () => {
    const alert = await createAlert(0, 110);
    const delivered = await crossing();
    const tampered = { ...delivered, rawBody: Buffer.from(delivered.rawBody.toString('utf8').replace(alert.id, crypto.randomUUID())) };
    expect(tampered.rawBody.equals(delivered.rawBody)).toBe(false);
    expect(standardCheck(alert.signingSecret, tampered)).toBe('No matching signature found');
    expect(specCheck(alert.signingSecret, tampered)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    const wrong = generateSigningSecret();
    expect(standardCheck(wrong, delivered)).toBe('No matching signature found');
    expect(specCheck(wrong, delivered)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    vi.useFakeTimers({ now: Date.now() + 360_000, toFake: ['Date'] });
    expect(standardCheck(alert.signingSecret, delivered)).toBe('Message timestamp too old');
    expect(specCheck(alert.signingSecret, delivered)).toMatchObject({ ok: false, reason: 'stale_timestamp' });
  });

  it('rotating without a body invalidates the old secret at once, for both schemes', async () => {
    const alert = await createAlert(0, 110);
    const rotated = await call('POST', `/api/v1/client/webhooks/${alert.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(Object.keys(rotated.json<object>())).toEqual(['signingSecret']);
    const { signingSecret } = rotated.json<{ signingSecret: string }>();
    expect(signingSecret).toMatch(STANDARD_SECRET);
    const webhook = await crossing();
    expect(String(webhook.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([standardCheck(signingSecret, webhook), standardCheck(alert.signingSecret, webhook)]).toEqual(['ok', 'No matching signature found']);
    expect([specCheck(signingSecret, webhook).ok, specCheck(alert.signingSecret, webhook).ok]).toEqual([true, false]);
  });

  it('rotating with a grace window signs webhook-signature with both secrets until it ends, the spec header with the new one', async () => {
    const alert = await createAlert(0, 110);
    const rotated = await call('POST', `/api/v1/client/webhooks/${alert.id}/rotate-secret`, { previousSecretValidSeconds: 3600 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { signingSecret, previousSecretExpiresUtc } = rotated.json<{ signingSecret: string; previousSecretExpiresUtc: string }>();
    expect(previousSecretExpiresUtc).toBe(new Date(clock.now().getTime() + 3_600_000).toISOString());
    const [row] = await test.dependencies.database.db.select().from(rateAlerts).where(eq(rateAlerts.id, alert.id));
    expect(row!.previousSigningSecretSealed).not.toContain(alert.signingSecret.slice(6));

    const during = await crossing();
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([standardCheck(signingSecret, during), standardCheck(alert.signingSecret, during)]).toEqual(['ok', 'ok']);
    expect([specCheck(signingSecret, during).ok, specCheck(alert.signingSecret, during).ok]).toEqual([true, false]);

    clock.advance(3_600_000);
    const after = await crossing();
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([standardCheck(signingSecret, after), standardCheck(alert.signingSecret, after)]).toEqual(['ok', 'No matching signature found']);
  });

  it.each([[-1], [604_801], [2.5], ['60'], [null]])('answers 400 problem+json to previousSecretValidSeconds %j and keeps the secret', async (value) => {
    const alert = await createAlert(0, 110);
    const response = await call('POST', `/api/v1/client/webhooks/${alert.id}/rotate-secret`, { previousSecretValidSeconds: value });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(standardCheck(alert.signingSecret, await crossing())).toBe('ok');
  });

  it("accepts the 7-day maximum; another client's webhook is 404", async () => {
    const alert = await createAlert(0, 110);
    const longest = await call('POST', `/api/v1/client/webhooks/${alert.id}/rotate-secret`, { previousSecretValidSeconds: 604_800 });
    expect(longest.json()).toMatchObject({ previousSecretExpiresUtc: new Date(clock.now().getTime() + 604_800_000).toISOString() });
    const other = await createClient(test, 'Enterprise');
    const foreign = await test.app.inject({ method: 'POST', url: `/api/v1/client/webhooks/${alert.id}/rotate-secret`, headers: other.headers, payload: { previousSecretValidSeconds: 60 } });
    expect(foreign.statusCode).toBe(404);
  });
});
