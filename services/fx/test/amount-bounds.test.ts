import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateAlertListener } from '../src/domain/alerts/evaluate-alerts.js';
import { ingestRates } from '../src/domain/rates/ingest-rates.js';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from './helpers.js';

let test: TestApp;

function post(url: string, payload: unknown) {
  return test.app.inject({ method: 'POST', url, headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: payload as Record<string, unknown> });
}

beforeAll(async () => {
  test = await buildTestApp();
});
afterAll(async () => {
  await test.close();
});

// Numbers JavaScript writes with an exponent, and the smallest doubles, used to reach a 500 or be stored as 0.
const TOO_LARGE = [1e21, 1e300, Number.MAX_VALUE, Number('123456789012345678901234567890')];
const TOO_SMALL = [5e-324, 1e-9, 0.000000004];

describe('rate and price amounts outside what the store keeps', () => {
  it.each(TOO_LARGE)('refuses %s on admin rates, overrides and crypto with a 400 naming the field', async (value) => {
    for (const [url, payload, path] of [
      ['/api/v1/admin/rates', { source: 'MARKET', force: true, rates: [{ currency: 'USD', buy: 100, sell: value }] }, 'rates.0.sell'],
      ['/api/v1/admin/overrides', { currency: 'USD', buy: value, sell: value, reason: 'test' }, 'buy'],
      ['/api/v1/admin/crypto', { prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: value }] }, 'priceUsd'],
    ] as const) {
      const response = await post(url, payload);
      expect(response.statusCode, `${url} ${response.body}`).toBe(400);
      expect(response.body).toContain('at most 1000000000000');
      expect(response.body).toContain(path);
    }
  });

  it.each(TOO_SMALL)('refuses %s, which would be stored as 0, with a 400', async (value) => {
    for (const [url, payload] of [
      ['/api/v1/admin/rates', { source: 'MARKET', force: true, rates: [{ currency: 'USD', buy: value, sell: 100 }] }],
      ['/api/v1/admin/overrides', { currency: 'USD', buy: value, sell: 100, reason: 'test' }],
      ['/api/v1/admin/crypto', { prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: value }] }],
    ] as const) {
      const response = await post(url, payload);
      expect(response.statusCode, `${url} ${response.body}`).toBe(400);
      expect(response.body).toContain('stored with 8 decimals');
    }
  });

  it('accepts the bounds themselves', async () => {
    const response = await post('/api/v1/admin/rates', { source: 'MARKET', force: true, rates: [{ currency: 'EUR', buy: 0.00000001, sell: 1e12 }] });
    expect(response.statusCode, response.body).toBe(201);
  });

  it('applies the same bounds to ingestion without the API schema (pollers, CSV import)', async () => {
    await expect(test.dependencies.database.db.transaction((tx) => ingestRates(tx, { source: 'CBS', rates: [{ currency: 'USD', buy: 1e21, sell: 1e21 }] }, new Date(), rateAlertListener()))).rejects.toMatchObject({
      status: 400,
      extensions: { errors: [{ path: 'rates[0].buy', message: 'must be at most 1000000000000' }, { path: 'rates[0].sell', message: 'must be at most 1000000000000' }] },
    });
  });
});
