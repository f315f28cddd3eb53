import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, manualClock, postRates, type TestApp } from './helpers.js';

// previousMid lets a client (the rates page among them) show the change against the previous
// day from /rates/latest alone, instead of one history request per currency and source.
const clock = manualClock('2026-01-02T12:00:00.000Z');
let testApp: TestApp;

beforeAll(async () => {
  testApp = await buildTestApp({}, { clock: clock.now });
  const post = async (source: string, timestampUtc: string, rates: Record<string, unknown>[]) => expect((await postRates(testApp, { source, timestampUtc, force: true, rates })).statusCode).toBe(201);
  // USD market: two points on 30 December (old pounds), none on the 31st, then 1 and 2 January (new pounds).
  await post('MARKET', '2025-12-30T08:00:00.000Z', [{ currency: 'USD', buy: 12_800, sell: 13_000 }]);
  await post('MARKET', '2025-12-30T16:00:00.000Z', [{ currency: 'USD', buy: 13_000, sell: 13_200 }]);
  await post('MARKET', '2026-01-01T09:00:00.000Z', [{ currency: 'USD', buy: 131, sell: 133 }]);
  await post('MARKET', '2026-01-02T07:00:00.000Z', [{ currency: 'USD', buy: 132, sell: 134 }]);
  await post('MARKET', '2026-01-02T11:00:00.000Z', [{ currency: 'USD', buy: 133, sell: 135 }, { currency: 'EUR', buy: 140, sell: 142 }]);
  // CBS USD: its latest day is 1 January, so its previous close is the old-pound one of 30 December, rescaled.
  await post('CBS', '2025-12-30T10:00:00.000Z', [{ currency: 'USD', buy: 12_500, sell: 12_600 }]);
  await post('CBS', '2026-01-01T10:00:00.000Z', [{ currency: 'USD', buy: 126, sell: 127 }]);
});
afterAll(async () => {
  await testApp.close();
});

const latest = async () => {
  const response = await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest' });
  expect(response.statusCode).toBe(200);
  return response.json<Record<'cbsRates' | 'marketRates' | 'effectiveRates', { currency: string; mid: number; previousMid: number | null; isManualOverride: boolean }[]>>();
};

describe('previousMid in GET /api/v1/rates/latest', () => {
  it("is the last close of an earlier UTC day, not an earlier point of the same day", async () => {
    const body = await latest();
    expect(body.marketRates.find((rate) => rate.currency === 'USD')).toMatchObject({ mid: 134, previousMid: 132 });
  });

  it('is rescaled to the new pound when the previous close is from before the redenomination', async () => {
    const body = await latest();
    expect(body.cbsRates.find((rate) => rate.currency === 'USD')).toMatchObject({ mid: 126.5, previousMid: 125.5 });
  });

  it('is null for a currency without an earlier day and for a manual override', async () => {
    expect((await latest()).marketRates.find((rate) => rate.currency === 'EUR')?.previousMid).toBeNull();
    const override = await testApp.app.inject({ method: 'POST', url: '/api/v1/admin/overrides', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { currency: 'USD', buy: 140, sell: 142, reason: 'test' } });
    expect(override.statusCode).toBe(201);
    const body = await latest();
    expect(body.effectiveRates.find((rate) => rate.currency === 'USD')).toMatchObject({ isManualOverride: true, previousMid: null });
    expect(body.marketRates.find((rate) => rate.currency === 'USD')?.previousMid).toBe(132);
  });
});
