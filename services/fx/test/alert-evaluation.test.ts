import { verifyFxWebhook } from '@svc/webhook-signing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from './helpers.js';
import { buildAlertTestApp, createClient, postMid, startReceiver, type AlertTestApp } from './alert-helpers.js';

describe('rate alerts: evaluation and signed delivery', () => {
  let test: AlertTestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let client: Awaited<ReturnType<typeof createClient>>;
  let currencyIndex = 0;
  // Each test watches its own currency, so tests do not see each other's rates.
  const currencies = ['USD', 'EUR', 'GBP', 'TRY', 'SAR', 'AED', 'JOD', 'EGP', 'CHF', 'CAD', 'AUD', 'SEK', 'CNY', 'RUB', 'KWD', 'QAR'];
  let currency: string;

  beforeAll(async () => {
    test = await buildAlertTestApp();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await test.close();
  });
  beforeEach(async () => {
    currency = currencies[currencyIndex++]!;
    client = await createClient(test, 'Enterprise');
    receiver.received.length = 0;
    receiver.respondWith(200);
  });
  afterEach(() => undefined);

  async function createAlert(body: Record<string, unknown>) {
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/client/webhooks', headers: client.headers, payload: { webhookUrl: receiver.url, currency, source: 'MARKET', ...body } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string; signingSecret: string }>();
  }
  const received = () => receiver.received.filter((webhook) => webhook.body.currency === currency);
  async function post(mid: number, source: 'CBS' | 'MARKET' = 'MARKET') {
    await postMid(test, source, currency, mid);
    await test.drain();
  }

  it('ABOVE fires once when the rate crosses up, not again while it stays above, and again after it fell back', async () => {
    await post(100);
    const alert = await createAlert({ alertType: 0, thresholdValue: 110, label: 'dollar over 110' });
    await post(105);
    expect(received()).toHaveLength(0);
    await post(112);
    await post(115);
    expect(received()).toHaveLength(1);
    const [delivery] = received();
    expect(verifyFxWebhook({ secret: alert.signingSecret, headers: delivery!.headers, rawBody: delivery!.rawBody })).toMatchObject({ ok: true });
    expect(delivery!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-signature-version': '2',
      'x-service-event': 'rate_alert',
      'x-service-timestamp': expect.stringMatching(/^\d+$/),
      'x-service-signature-256': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(delivery!.body).toEqual({
      event: 'rate_alert',
      currency,
      source: 'MARKET',
      alertType: 'ABOVE',
      threshold: 110,
      currentRate: 112,
      previousRate: 105,
      label: 'dollar over 110',
      webhookId: alert.id,
      timestampUtc: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    await post(100);
    await post(110);
    expect(received().map((webhook) => webhook.body.currentRate)).toEqual([112, 110]);
    const listed = await test.app.inject({ method: 'GET', url: '/api/v1/client/webhooks', headers: client.headers });
    expect(listed.json<Record<string, unknown>[]>()[0]).toMatchObject({ lastDeliveryStatusCode: 200, consecutiveFailures: 0, lastTriggeredUtc: expect.any(String) });
  });

  it('rounds the rates of the payload as /rates/latest serves them, while crossing on the exact values', async () => {
    await post(109.996);
    await createAlert({ alertType: 0, thresholdValue: 110 });
    await post(109.998); // rounds to 110.00, but is still below 110: no crossing
    await post(110.004567);
    expect(received().map((webhook) => [webhook.body.currentRate, webhook.body.previousRate])).toEqual([[110, 110]]);
  });

  it('BELOW fires on the crossing down only', async () => {
    await post(120);
    await createAlert({ alertType: 1, thresholdValue: 100 });
    await post(101);
    await post(99.5);
    await post(98);
    await post(101);
    await post(100);
    expect(received().map((webhook) => [webhook.body.alertType, webhook.body.currentRate, webhook.body.previousRate])).toEqual([
      ['BELOW', 99.5, 101],
      ['BELOW', 100, 101],
    ]);
  });

  it('fires a new alert whose condition already holds on the next update that still satisfies it', async () => {
    await post(130);
    await createAlert({ alertType: 0, thresholdValue: 120 });
    await post(131);
    expect(received()).toHaveLength(1);
    await post(132);
    expect(received()).toHaveLength(1);
  });

  it('does not fire a new alert whose condition held at creation when the next update no longer satisfies it', async () => {
    await post(130);
    await createAlert({ alertType: 0, thresholdValue: 120 });
    await post(119);
    await post(125);
    expect(received().map((webhook) => webhook.body.currentRate)).toEqual([125]);
  });

  it('CHANGE_INCREASE fires at the threshold percent from the reference, then measures from the firing rate', async () => {
    await post(100);
    await createAlert({ alertType: 2, thresholdValue: 10 });
    await post(105);
    await post(110);
    await post(115);
    await post(120);
    await post(121);
    expect(received().map((webhook) => [webhook.body.alertType, webhook.body.currentRate, webhook.body.threshold])).toEqual([
      ['CHANGE_INCREASE', 110, 10],
      ['CHANGE_INCREASE', 121, 10],
    ]);
  });

  it('CHANGE_DECREASE fires on a fall of the threshold percent, with the reference reset after firing', async () => {
    await post(200);
    await createAlert({ alertType: 3, thresholdValue: 5 });
    await post(195);
    await post(190);
    await post(185);
    await post(180.5);
    expect(received().map((webhook) => webhook.body.currentRate)).toEqual([190, 180.5]);
  });

  it('takes the first rate as the reference of a percent alert created before any rate existed', async () => {
    await createAlert({ alertType: 2, thresholdValue: 50 });
    await post(10);
    await post(14);
    await post(15);
    expect(received().map((webhook) => webhook.body.currentRate)).toEqual([15]);
  });

  it('watches the effective MARKET rate (overrides count) and keeps CBS apart', async () => {
    await post(100);
    await post(100, 'CBS');
    await createAlert({ alertType: 0, thresholdValue: 150 });
    const override = await test.app.inject({ method: 'POST', url: '/api/v1/admin/overrides', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { currency, buy: 160, sell: 160, reason: 'test' } });
    expect(override.statusCode).toBe(201);
    await test.drain();
    expect(received().map((webhook) => [webhook.body.source, webhook.body.currentRate, webhook.body.previousRate])).toEqual([['MARKET', 160, 100]]);
    // While the override is active, market updates do not move the effective rate.
    await post(140);
    await post(155);
    expect(received()).toHaveLength(1);
    await post(200, 'CBS');
    expect(received()).toHaveLength(1);
  });

  it('disables a webhook after 10 failed firings, stops evaluating it, and re-enables it on PUT isActive', async () => {
    await post(100);
    const alert = await createAlert({ alertType: 0, thresholdValue: 110 });
    receiver.respondWith(500);
    for (let firing = 0; firing < 10; firing++) {
      await post(111);
      await post(100);
    }
    // 10 firings × 3 attempts each.
    expect(received()).toHaveLength(30);
    const webhook = async () => (await test.app.inject({ method: 'GET', url: '/api/v1/client/webhooks', headers: client.headers })).json<Record<string, unknown>[]>().find((item) => item.id === alert.id);
    expect(await webhook()).toMatchObject({ isActive: false, consecutiveFailures: 10, lastDeliveryStatusCode: 500 });
    receiver.respondWith(200);
    await post(111);
    await post(100);
    expect(received()).toHaveLength(30);
    const enabled = await test.app.inject({ method: 'PUT', url: `/api/v1/client/webhooks/${alert.id}`, headers: client.headers, payload: { isActive: true } });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toMatchObject({ isActive: true, consecutiveFailures: 0 });
    await post(111);
    expect(received()).toHaveLength(31);
    expect(await webhook()).toMatchObject({ isActive: true, consecutiveFailures: 0, lastDeliveryStatusCode: 200 });
  });

  it('resets the failure count on a success, and records 0 for a receiver that does not answer', async () => {
    await post(100);
    const alert = await createAlert({ alertType: 0, thresholdValue: 110 });
    receiver.respondWith(503);
    await post(111);
    await post(100);
    const webhook = async () => (await test.app.inject({ method: 'GET', url: '/api/v1/client/webhooks', headers: client.headers })).json<Record<string, unknown>[]>().find((item) => item.id === alert.id);
    expect(await webhook()).toMatchObject({ consecutiveFailures: 1, lastDeliveryStatusCode: 503 });
    receiver.respondWith(204);
    await post(111);
    expect(await webhook()).toMatchObject({ consecutiveFailures: 0, lastDeliveryStatusCode: 204 });
    const closedPort = await test.app.inject({ method: 'PUT', url: `/api/v1/client/webhooks/${alert.id}`, headers: client.headers, payload: { webhookUrl: 'http://127.0.0.1:9/nothing' } });
    expect(closedPort.statusCode).toBe(200);
    await post(100);
    await post(111);
    expect(await webhook()).toMatchObject({ consecutiveFailures: 1, lastDeliveryStatusCode: 0 });
  });

  it('signs with the rotated secret after rotate-secret', async () => {
    await post(100);
    const alert = await createAlert({ alertType: 0, thresholdValue: 110 });
    const rotated = await test.app.inject({ method: 'POST', url: `/api/v1/client/webhooks/${alert.id}/rotate-secret`, headers: client.headers });
    expect(rotated.statusCode).toBe(200);
    const { signingSecret } = rotated.json<{ signingSecret: string }>();
    expect(signingSecret).toMatch(/^whsec_/);
    expect(signingSecret).not.toBe(alert.signingSecret);
    await post(111);
    const [delivery] = received();
    expect(verifyFxWebhook({ secret: signingSecret, headers: delivery!.headers, rawBody: delivery!.rawBody })).toMatchObject({ ok: true });
    expect(verifyFxWebhook({ secret: alert.signingSecret, headers: delivery!.headers, rawBody: delivery!.rawBody })).toMatchObject({ ok: false });
  });
});
