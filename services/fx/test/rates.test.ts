import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxEvents } from '../src/db/schema.js';
import { ADMIN_TOKEN, buildTestApp, manualClock, postRates, type TestApp } from './helpers.js';

const clock = manualClock('2026-03-10T12:00:00.000Z');
let testApp: TestApp;

beforeAll(async () => {
  testApp = await buildTestApp({}, { clock: clock.now });
  await postRates(testApp, {
    source: 'CBS',
    timestampUtc: '2026-03-10T08:00:00.000Z',
    rates: [
      { currency: 'USD', buy: 110, sell: 111 },
      { currency: 'EUR', buy: 119.5, sell: 120.5 },
    ],
  });
  await postRates(testApp, {
    source: 'MARKET',
    timestampUtc: '2026-03-10T09:00:00.000Z',
    rates: [
      { currency: 'USD', buy: 118, sell: 120 },
      { currency: 'EUR', buy: 128, sell: 131 },
      { currency: 'KWD', buy: 385, sell: 390, mid: 387.5 },
    ],
  });
});
afterAll(async () => {
  await testApp.close();
});

const get = (url: string, headers: Record<string, string> = {}) => testApp.app.inject({ method: 'GET', url, headers });

describe('cross-origin reads', () => {
  it('answers a preflight 204 with the read methods and the headers the page asked for, on any route', async () => {
    const preflight = await testApp.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/rates/latest',
      headers: { origin: 'https://dashboard.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key, x-api-secret' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': 'x-api-key, x-api-secret',
      vary: 'Access-Control-Request-Headers',
      'content-length': '0',
    });
    expect(preflight.body).toBe('');
    const unknown = await testApp.app.inject({ method: 'OPTIONS', url: '/api/v1/no-such-route', headers: { 'access-control-request-method': 'GET' } });
    expect(unknown.statusCode).toBe(204);
    expect(unknown.headers['access-control-allow-headers']).toBeUndefined();
  });

  it('lets a page read every header a response carries beyond the safelisted ones: limits, quota, ETag, correlation id', async () => {
    const response = await get('/api/v1/rates/latest', { origin: 'https://dashboard.example' });
    expect(response.statusCode).toBe(200);
    const exposed = String(response.headers['access-control-expose-headers']).toLowerCase().split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['x-rate-limit-remaining', 'x-rate-limit-reset', 'ratelimit', 'ratelimit-policy', 'retry-after', 'etag', 'x-correlation-id']));
    // The CORS-safelisted response headers, and the CORS headers themselves, need no exposing.
    const readableAnyway = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);
    const unexposed = Object.keys(response.headers).filter((name) => !readableAnyway.has(name) && !name.startsWith('access-control-') && !exposed.includes(name));
    // Hop-by-hop and transport headers are the browser's, not the page's.
    expect(unexposed.filter((name) => !['connection', 'keep-alive', 'date', 'vary', 'content-security-policy', 'x-content-type-options', 'referrer-policy', 'strict-transport-security', 'cross-origin-resource-policy'].includes(name))).toEqual([]);
    const limited = await get('/api/v1/no-such-route', { origin: 'https://dashboard.example' });
    expect(limited.headers['access-control-expose-headers']).toBe(response.headers['access-control-expose-headers']);
  });

  it('sends the CORS headers only to a request that carries Origin, and tells caches the answer varies on it', async () => {
    const direct = await get('/api/v1/rates/latest');
    expect(direct.statusCode).toBe(200);
    expect(Object.keys(direct.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(direct.headers.vary).toBe('Origin');
    const fromPage = await get('/api/v1/rates/latest', { origin: 'https://dashboard.example' });
    expect(fromPage.headers['access-control-allow-origin']).toBe('*');
    expect(fromPage.headers.vary).toBe('Origin');
    // A route that varies on more keeps Origin beside its own.
    const history = await get('/api/v1/rates/history?currency=USD', { origin: 'https://dashboard.example' });
    expect(history.statusCode).toBe(200);
    expect(history.headers.vary).toBe('Origin, Accept');
  });

  it('lets any origin read errors too', async () => {
    const missing = await get('/api/v1/no-such-route', { origin: 'https://dashboard.example' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('GET /api/v1/rates/latest', () => {
  it('serves CBS, market and effective rates with exact rounded values', async () => {
    const response = await get('/api/v1/rates/latest?lang=en');
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const body = response.json();
    expect(body.disclaimer).toBe('Rates are shown for information only and may differ from actual trading prices; they are not an offer to buy or sell.');
    expect(body.timestampUtc).toBe('2026-03-10T12:00:00.000Z');
    expect(body.cbsRates).toEqual([
      { currency: 'EUR', buy: 119.5, sell: 120.5, mid: 120, timestampUtc: '2026-03-10T08:00:00.000Z', isManualOverride: false, previousMid: null },
      { currency: 'USD', buy: 110, sell: 111, mid: 110.5, timestampUtc: '2026-03-10T08:00:00.000Z', isManualOverride: false, previousMid: null },
    ]);
    expect(body.marketRates.map((rate: { currency: string; mid: number }) => [rate.currency, rate.mid])).toEqual([
      ['EUR', 129.5],
      ['KWD', 387.5],
      ['USD', 119],
    ]);
    expect(body.effectiveRates).toEqual(body.marketRates);
  });

  it('filters by currencies and names unknown codes and parameters in a 400', async () => {
    const filtered = await get('/api/v1/rates/latest?currencies=usd,KWD');
    expect(filtered.json().marketRates.map((rate: { currency: string }) => rate.currency)).toEqual(['KWD', 'USD']);
    expect(filtered.json().cbsRates.map((rate: { currency: string }) => rate.currency)).toEqual(['USD']);

    const unknown = await get('/api/v1/rates/latest?currencies=USD,XYZ,ABC');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers['content-type']).toContain('application/problem+json');
    expect(unknown.json().detail).toBe('Unsupported currency code(s): XYZ, ABC.');
    expect(unknown.json().errors).toEqual([{ path: 'query.currencies', message: 'unsupported: XYZ, ABC' }]);

    const typo = await get('/api/v1/rates/latest?currency=USD');
    expect(typo.statusCode).toBe(400);
    expect(typo.json().errors).toEqual([{ path: 'query.currency', message: 'Unrecognized key' }]);
  });

  it('answers 304 to a current If-None-Match and a fresh ETag after new data', async () => {
    const first = await get('/api/v1/rates/latest?lang=de');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=30');
    const again = await get('/api/v1/rates/latest?lang=de', { 'If-None-Match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const override = await testApp.app.inject({
      method: 'POST',
      url: '/api/v1/admin/overrides',
      headers: { 'X-Admin-Token': ADMIN_TOKEN },
      payload: { currency: 'EUR', buy: 130, sell: 132, reason: 'test' },
    });
    expect(override.statusCode).toBe(201);
    const changed = await get('/api/v1/rates/latest?lang=de', { 'If-None-Match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    await testApp.app.inject({ method: 'DELETE', url: '/api/v1/admin/overrides/EUR', headers: { 'X-Admin-Token': ADMIN_TOKEN } });
  });
});

describe('GET /api/v1/rates/usd-based', () => {
  it('derives cross rates whose spread widens (hand-computed)', async () => {
    const response = await get('/api/v1/rates/usd-based?lang=en');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.base).toBe('USD');
    expect(body.date).toBe('2026-03-10');
    const byCurrency = Object.fromEntries(body.rates.map((rate: { currency: string }) => [rate.currency, rate]));
    expect(byCurrency.SYP).toEqual({ currency: 'SYP', buy: 118, sell: 120, mid: 119, timestampUtc: '2026-03-10T09:00:00.000Z' });
    // EUR per USD: mid 119/129.5, buy 118/131, sell 120/128
    expect(byCurrency.EUR).toEqual({ currency: 'EUR', buy: 0.900763, sell: 0.9375, mid: 0.918919, timestampUtc: '2026-03-10T09:00:00.000Z' });
    // KWD per USD: 119/387.5 = 0.307097; 118/390 = 0.302564; 120/385 = 0.311688
    expect(byCurrency.KWD).toMatchObject({ buy: 0.302564, sell: 0.311688, mid: 0.307097 });
    expect(byCurrency.USD).toBeUndefined();
  });
});

describe('manual overrides', () => {
  it('win over the market while active and fall back after removal', async () => {
    const set = await testApp.app.inject({
      method: 'POST',
      url: '/api/v1/admin/overrides',
      headers: { 'X-Admin-Token': ADMIN_TOKEN },
      payload: { currency: 'usd', buy: 121, sell: 123, reason: 'market closed' },
    });
    expect(set.json()).toEqual({ currency: 'USD', buy: '121', sell: '123', mid: '122', expiresUtc: null });
    const during = (await get('/api/v1/rates/latest?currencies=USD')).json();
    expect(during.effectiveRates).toEqual([{ currency: 'USD', buy: 121, sell: 123, mid: 122, timestampUtc: '2026-03-10T12:00:00.000Z', isManualOverride: true, previousMid: null }]);
    expect(during.marketRates[0].mid).toBe(119);
    const cross = (await get('/api/v1/rates/usd-based')).json();
    expect(cross.rates[0]).toMatchObject({ currency: 'SYP', mid: 122 });

    const removed = await testApp.app.inject({ method: 'DELETE', url: '/api/v1/admin/overrides/USD', headers: { 'X-Admin-Token': ADMIN_TOKEN } });
    expect(removed.statusCode).toBe(204);
    const after = (await get('/api/v1/rates/latest?currencies=USD')).json();
    expect(after.effectiveRates[0]).toMatchObject({ mid: 119, isManualOverride: false });
    const again = await testApp.app.inject({ method: 'DELETE', url: '/api/v1/admin/overrides/USD', headers: { 'X-Admin-Token': ADMIN_TOKEN } });
    expect(again.statusCode).toBe(404);
  });
});

describe('POST /api/v1/admin/rates', () => {
  it('refuses a missing or wrong admin token with 401', async () => {
    const payload = { source: 'MARKET', rates: [{ currency: 'USD', buy: 118, sell: 120 }] };
    const missing = await testApp.app.inject({ method: 'POST', url: '/api/v1/admin/rates', payload });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe('UNAUTHENTICATED');
    const wrong = await testApp.app.inject({ method: 'POST', url: '/api/v1/admin/rates', headers: { 'X-Admin-Token': 'nope' }, payload });
    expect(wrong.statusCode).toBe(401);
  });

  it('names the offending item path and writes nothing on invalid input', async () => {
    const response = await postRates(testApp, {
      source: 'MARKET',
      rates: [
        { currency: 'USD', buy: 118, sell: 120 },
        { currency: 'XXX', buy: 125, sell: 120 },
      ],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([
      { path: 'rates[1].currency', message: 'unsupported currency: XXX' },
      { path: 'rates[1].buy', message: 'must not exceed sell' },
    ]);
  });

  it('refuses a jump over 50% unless forced, and writes one outbox event per accepted ingestion', async () => {
    const before = await testApp.dependencies.database.db.select().from(outboxEvents);
    const jump = await postRates(testApp, { source: 'MARKET', rates: [{ currency: 'USD', buy: 190, sell: 200 }] });
    expect(jump.statusCode).toBe(400);
    expect(jump.json().errors[0].path).toBe('rates[0].mid');
    const forced = await postRates(testApp, { source: 'MARKET', force: true, rates: [{ currency: 'GBP', buy: 150.1, sell: 150.2 }] });
    expect(forced.statusCode).toBe(201);
    expect(forced.json().accepted).toEqual([{ currency: 'GBP', buy: '150.1', sell: '150.2', mid: '150.15', previousMid: null }]);
    const after = await testApp.dependencies.database.db.select().from(outboxEvents);
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ topic: 'rates.ingested', processedAt: null, payload: { source: 'MARKET', rates: [{ currency: 'GBP', mid: '150.15' }] } });
  });
});

describe('admin API off without FX_ADMIN_TOKEN', () => {
  it('has no admin routes', async () => {
    const bare = await buildTestApp({ FX_ADMIN_TOKEN: '' });
    try {
      const response = await bare.app.inject({ method: 'POST', url: '/api/v1/admin/rates', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: {} });
      expect(response.statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
