import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cryptoPrices, outboxEvents } from '../src/db/schema.js';
import { ADMIN_TOKEN, buildTestApp, manualClock, postRates, type TestApp } from './helpers.js';

const clock = manualClock('2026-03-10T12:00:00.000Z');
let testApp: TestApp;

function post(url: string, payload: unknown, token = ADMIN_TOKEN) {
  return testApp.app.inject({ method: 'POST', url, headers: { 'X-Admin-Token': token }, payload: payload as Record<string, unknown> });
}

beforeAll(async () => {
  testApp = await buildTestApp({}, { clock: clock.now });
});
afterAll(async () => {
  await testApp.close();
});

describe('crypto prices', () => {
  it('serves an empty list before any price, with the Arabic disclaimer by default', async () => {
    const response = await testApp.app.inject({ url: '/api/v1/crypto/latest' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ prices: [], disclaimer: expect.stringMatching(/[\u0600-\u06FF]/) });
  });

  it('computes the 24-hour change from stored history, null until a day of history exists', async () => {
    const first = await post('/api/v1/admin/crypto', { prices: [{ symbol: 'btc', name: 'Bitcoin', priceUsd: 90000, timestampUtc: '2026-03-09T11:00:00.000Z' }] });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ accepted: [{ symbol: 'BTC', priceUsd: '90000', change24h: null, changePercent24h: null }] });
    const second = await post('/api/v1/admin/crypto', { prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 93600.5 }] });
    expect(second.json()).toEqual({ accepted: [{ symbol: 'BTC', priceUsd: '93600.5', change24h: '3600.5', changePercent24h: '4.00055555' }] });

    const latest = await testApp.app.inject({ url: '/api/v1/crypto/latest?lang=en' });
    expect(latest.json()).toEqual({
      disclaimer: expect.stringContaining('information only'),
      timestampUtc: '2026-03-10T12:00:00.000Z',
      prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 93600.5, change24h: 3600.5, changePercent24h: 4, timestampUtc: '2026-03-10T12:00:00.000Z' }],
    });
    const events = await testApp.dependencies.database.db.select().from(outboxEvents);
    expect(events.filter((event) => event.topic === 'crypto.ingested')).toHaveLength(2);
  });

  it('answers 304 for a current ETag and a new body after new data', async () => {
    const first = await testApp.app.inject({ url: '/api/v1/crypto/latest?lang=de' });
    const etag = String(first.headers.etag);
    expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect((await testApp.app.inject({ url: '/api/v1/crypto/latest?lang=de', headers: { 'If-None-Match': etag } })).statusCode).toBe(304);
    await post('/api/v1/admin/crypto', { prices: [{ symbol: 'ETH', name: 'Ethereum', priceUsd: 3000 }] });
    const after = await testApp.app.inject({ url: '/api/v1/crypto/latest?lang=de', headers: { 'If-None-Match': etag } });
    expect(after.statusCode).toBe(200);
    expect(after.json<{ prices: { symbol: string }[] }>().prices.map((price) => price.symbol)).toEqual(['BTC', 'ETH']);
  });

  it.each([
    [{ prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: -1 }] }, 'body.prices.0.priceUsd'],
    [{ prices: [{ symbol: 'B!', name: 'Bad', priceUsd: 1 }] }, 'body.prices.0.symbol'],
    [{ prices: [] }, 'body.prices'],
    [{ prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 1, extra: true }] }, 'body.prices.0.extra'],
    [{ prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 1 }, { symbol: 'btc', name: 'Bitcoin', priceUsd: 2 }] }, 'body.prices.1.symbol'],
    [{ prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 1, timestampUtc: '2026-03-11T00:00:00.000Z' }] }, 'body.prices.0.timestampUtc'],
    [{ prices: [{ symbol: 'SOL', name: 'Solana', priceUsd: 1 }, { symbol: 'XRP', name: 'XRP', priceUsd: 1, timestampUtc: '2026-03-11T00:00:00.000Z' }] }, 'body.prices.1.timestampUtc'],
  ])('refuses %j naming %s, storing nothing', async (payload, path) => {
    const before = (await testApp.dependencies.database.db.select().from(cryptoPrices)).length;
    const response = await post('/api/v1/admin/crypto', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json<{ errors: { path: string }[] }>().errors.map((error) => error.path)).toContain(path);
    expect((await testApp.dependencies.database.db.select().from(cryptoPrices)).length).toBe(before);
  });

  it('offers ar, en and de only', async () => {
    const turkish = await testApp.app.inject({ url: '/api/v1/crypto/latest?lang=tr' });
    expect(turkish.statusCode).toBe(400);
    expect(turkish.json()).toMatchObject({ errors: [{ path: 'query.lang', message: 'must be one of ar, en, de' }] });
    const negotiated = await testApp.app.inject({ url: '/api/v1/crypto/latest', headers: { 'Accept-Language': 'tr;q=1, de;q=0.5' } });
    expect(negotiated.json<{ disclaimer: string }>().disclaimer).toContain('Information');
    expect((await testApp.app.inject({ url: '/api/v1/crypto/latest?currency=BTC' })).statusCode).toBe(400);
  });

  it('requires the admin token', async () => {
    expect((await post('/api/v1/admin/crypto', { prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 1 }] }, 'wrong-token')).statusCode).toBe(401);
  });
});

describe('gold prices', () => {
  it('serves per-unit USD prices with the 24-hour change and one gram in SYP at the effective USD rate', async () => {
    await postRates(testApp, { source: 'MARKET', rates: [{ currency: 'USD', buy: 129, sell: 131 }] });
    clock.set('2026-03-09T12:00:00.000Z');
    await post('/api/v1/admin/gold', { prices: [{ unit: 'ounce', karat: 24, priceUsd: 2600 }] });
    clock.set('2026-03-10T12:00:00.000Z');
    const ingested = await post('/api/v1/admin/gold', {
      prices: [
        { unit: 'ounce', karat: 24, priceUsd: 2652 },
        { unit: 'gram', karat: 21, priceUsd: 74.5 },
      ],
    });
    expect(ingested.statusCode).toBe(201);
    expect(ingested.json().accepted[0]).toEqual({ unit: 'ounce', karat: 24, priceUsd: '2652', change24h: '52', changePercent24h: '2' });

    const latest = await testApp.app.inject({ url: '/api/v1/gold/latest?lang=en' });
    expect(latest.statusCode).toBe(200);
    // 2652 / 31.1034768 g = 85.2637… USD per gram × 130 SYP = 11,084 SYP; 74.5 × 130 = 9,685.
    expect(latest.json().prices).toEqual([
      { unit: 'gram', karat: 21, name: 'Gold 21K / gram', priceUsd: 74.5, change24h: null, changePercent24h: null, pricePerGramSyp: 9685, timestampUtc: '2026-03-10T12:00:00.000Z' },
      { unit: 'ounce', karat: 24, name: 'Gold 24K / troy ounce', priceUsd: 2652, change24h: 52, changePercent24h: 2, pricePerGramSyp: 11084, timestampUtc: '2026-03-10T12:00:00.000Z' },
    ]);
    const arabic = await testApp.app.inject({ url: '/api/v1/gold/latest' });
    expect(arabic.json().prices[1].name).toBe('ذهب 24K / أونصة');
  });

  it.each([
    [{ prices: [{ unit: 'ounce', karat: 20, priceUsd: 1 }] }, 'body.prices.0.karat'],
    [{ prices: [{ unit: 'kilo', karat: 24, priceUsd: 1 }] }, 'body.prices.0.unit'],
    [{ prices: [{ unit: 'gram', karat: 24, priceUsd: 0 }] }, 'body.prices.0.priceUsd'],
    [{ prices: [{ unit: 'gram', karat: 24, priceUsd: 1 }, { unit: 'gram', karat: 24, priceUsd: 2 }] }, 'body.prices.1'],
  ])('refuses %j naming %s', async (payload, path) => {
    const response = await post('/api/v1/admin/gold', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json<{ errors: { path: string }[] }>().errors.map((error) => error.path)).toContain(path);
  });
});

describe('rounding', () => {
  it('rounds a change like its price: cents above a dollar, 6 decimals below', async () => {
    clock.set('2026-03-08T12:00:00.000Z');
    await post('/api/v1/admin/crypto', { prices: [{ symbol: 'DOGE', name: 'Dogecoin', priceUsd: 0.1234567 }, { symbol: 'LTC', name: 'Litecoin', priceUsd: 84.461 }] });
    clock.set('2026-03-10T12:00:00.000Z');
    await post('/api/v1/admin/crypto', { prices: [{ symbol: 'DOGE', name: 'Dogecoin', priceUsd: 0.1301 }, { symbol: 'LTC', name: 'Litecoin', priceUsd: 85.016254 }] });
    const prices = (await testApp.app.inject({ url: '/api/v1/crypto/latest?lang=en' })).json<{ prices: { symbol: string; priceUsd: number; change24h: number }[] }>().prices;
    expect(prices.find((price) => price.symbol === 'LTC')).toMatchObject({ priceUsd: 85.02, change24h: 0.56 });
    expect(prices.find((price) => price.symbol === 'DOGE')).toMatchObject({ priceUsd: 0.1301, change24h: 0.006643 });
  });
});

describe('admin authentication order', () => {
  it('answers 401 for a wrong or missing token before looking at the body', async () => {
    for (const url of ['/api/v1/admin/rates', '/api/v1/admin/crypto', '/api/v1/admin/gold', '/api/v1/admin/overrides']) {
      expect((await post(url, {}, 'wrong-token')).statusCode).toBe(401);
      expect((await testApp.app.inject({ method: 'POST', url, payload: {} })).statusCode).toBe(401);
    }
  });
});
