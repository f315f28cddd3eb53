import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, postRates, type TestApp } from './helpers.js';
import { createClient, startReceiver } from './alert-helpers.js';
import { eventData, openStream, type OpenStream } from './stream-helpers.js';

interface RatesEvent {
  effectiveRates: { currency: string; mid: number; isManualOverride: boolean }[];
}

let testApp: TestApp;
let baseUrl: string;
const streams: OpenStream[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  // Real clock and a listening server: the expiry check runs as it does in production.
  testApp = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  receiver = await startReceiver();
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`;
  expect((await postRates(testApp, { source: 'MARKET', rates: [{ currency: 'USD', buy: 12_900, sell: 13_100 }] })).statusCode).toBe(201);
}, 60_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await testApp.close();
  await receiver.close();
});

const setOverride = (payload: Record<string, unknown>) => testApp.app.inject({ method: 'POST', url: '/api/v1/admin/overrides', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload });

describe('an override that expires by time', () => {
  it('reaches an open stream within 2 s of its expiry, with the market rate back, and fires the alerts it crosses', async () => {
    const client = await createClient(testApp, 'Enterprise');
    const alert = await testApp.app.inject({ method: 'POST', url: '/api/v1/client/webhooks', headers: client.headers, payload: { webhookUrl: receiver.url, currency: 'USD', source: 'MARKET', alertType: 1, thresholdValue: 13_500, label: 'dollar below 13500' } });
    expect(alert.statusCode, alert.body).toBe(201);
    const expiresAt = new Date(Date.now() + 3000);
    const set = await setOverride({ currency: 'USD', buy: 14_000, sell: 14_200, reason: 'until the bulletin', expiresUtc: expiresAt.toISOString() });
    expect(set.statusCode).toBe(201);
    expect(set.json()).toMatchObject({ mid: '14100', expiresUtc: expiresAt.toISOString() });

    const stream = await openStream(baseUrl, '/api/v1/rates/stream?currencies=USD');
    streams.push(stream);
    const snapshot = await stream.waitFor((event) => event.event === 'snapshot');
    expect(eventData<RatesEvent>(snapshot).effectiveRates).toEqual([expect.objectContaining({ currency: 'USD', mid: 14_100, isManualOverride: true })]);

    const ended = await stream.waitFor((event) => event.event === 'rates' && eventData<RatesEvent>(event).effectiveRates.some((rate) => !rate.isManualOverride), 10_000);
    const lateMs = Date.now() - expiresAt.getTime();
    expect(eventData<RatesEvent>(ended).effectiveRates).toEqual([expect.objectContaining({ currency: 'USD', mid: 13_000, isManualOverride: false })]);
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(lateMs).toBeLessThan(2000);
    const latest = (await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest?currencies=USD' })).json<RatesEvent>();
    expect(latest.effectiveRates).toEqual([expect.objectContaining({ mid: 13_000, isManualOverride: false })]);
    // The override (14100) held the effective rate above 13500; its end crosses BELOW.
    await expect.poll(() => receiver.received.map((webhook) => [webhook.body.alertType, webhook.body.previousRate, webhook.body.currentRate]), { timeout: 10_000 }).toEqual([['BELOW', 14_100, 13_000]]);
  }, 30_000);

  it('refuses an expiry that is not in the future', async () => {
    const response = await setOverride({ currency: 'USD', buy: 14_000, sell: 14_200, reason: 'late', expiresUtc: new Date(Date.now() - 1000).toISOString() });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: [{ path: 'body.expiresUtc', message: 'must be in the future' }] });
  });
});
