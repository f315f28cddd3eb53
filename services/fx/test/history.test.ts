import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, manualClock, postRates, type TestApp } from './helpers.js';

const clock = manualClock('2026-01-03T12:00:00.000Z');
let testApp: TestApp;

beforeAll(async () => {
  testApp = await buildTestApp({}, { clock: clock.now });
  const post = async (timestampUtc: string, buy: number, sell: number, force = false) => {
    const response = await postRates(testApp, { source: 'MARKET', timestampUtc, force, rates: [{ currency: 'USD', buy, sell }] });
    expect(response.statusCode).toBe(201);
  };
  await post('2025-12-30T09:00:00.000Z', 12_900, 13_100);
  await post('2025-12-31T09:00:00.000Z', 13_000, 13_200);
  await post('2025-12-31T15:00:00.000Z', 13_400, 13_600);
  await post('2025-12-31T18:00:00.000Z', 13_100, 13_300);
  await post('2026-01-02T09:00:00.000Z', 131, 133, true);
  await post('2026-01-03T09:00:00.000Z', 132, 134);
});
afterAll(async () => {
  await testApp.close();
});

const history = (query: string) => testApp.app.inject({ method: 'GET', url: `/api/v1/rates/history?${query}` });

describe('GET /api/v1/rates/history', () => {
  it('serves one point a day with OHLC of mid, rescaled to the current pound across the redenomination', async () => {
    const response = await history('currency=USD&days=5');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      currency: 'USD',
      source: 'MARKET',
      startDate: '2025-12-30',
      endDate: '2026-01-03',
      denomination: 'current',
      interval: 'day',
      points: [
        { date: '2025-12-30', buy: 129, sell: 131, mid: 130, open: 130, high: 130, low: 130, close: 130, denomination: 'SYP', rescaled: true },
        { date: '2025-12-31', buy: 131, sell: 133, mid: 132, open: 131, high: 135, low: 131, close: 132, denomination: 'SYP', rescaled: true },
        { date: '2026-01-02', buy: 131, sell: 133, mid: 132, open: 132, high: 132, low: 132, close: 132, denomination: 'SYP', rescaled: false },
        { date: '2026-01-03', buy: 132, sell: 134, mid: 133, open: 133, high: 133, low: 133, close: 133, denomination: 'SYP', rescaled: false },
      ],
    });
  });

  it('returns the values as published with denomination=original', async () => {
    const points = (await history('currency=usd&denomination=original&startDate=2025-12-31&endDate=2026-01-02')).json().points;
    expect(points).toEqual([
      { date: '2025-12-31', buy: 13_100, sell: 13_300, mid: 13_200, open: 13_100, high: 13_500, low: 13_100, close: 13_200, denomination: 'SYP_OLD', rescaled: false },
      { date: '2026-01-02', buy: 131, sell: 133, mid: 132, open: 132, high: 132, low: 132, close: 132, denomination: 'SYP', rescaled: false },
    ]);
  });

  it('lets startDate/endDate win over days and defaults days to 30', async () => {
    const explicit = (await history('currency=USD&days=1&startDate=2025-12-30&endDate=2025-12-30')).json();
    expect([explicit.startDate, explicit.endDate, explicit.points.length]).toEqual(['2025-12-30', '2025-12-30', 1]);
    const onlyStart = (await history('currency=USD&startDate=2026-01-02')).json();
    expect([onlyStart.startDate, onlyStart.endDate]).toEqual(['2026-01-02', '2026-01-03']);
    const onlyEnd = (await history('currency=USD&days=2&endDate=2025-12-31')).json();
    expect([onlyEnd.startDate, onlyEnd.endDate, onlyEnd.points.length]).toEqual(['2025-12-30', '2025-12-31', 2]);
    const defaults = (await history('currency=USD')).json();
    expect([defaults.startDate, defaults.endDate]).toEqual(['2025-12-05', '2026-01-03']);
    const cbs = (await history('currency=USD&source=CBS')).json();
    expect(cbs.points).toEqual([]);
  });

  it('tags the history with an ETag: 304 while it is current, a new tag once a rate changes it', async () => {
    const first = await history('currency=USD&days=5');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers['cache-control']).toContain('public');
    const again = await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/history?currency=USD&days=5', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await history('currency=USD&days=4')).headers.etag).not.toBe(etag);
    const changed = await postRates(testApp, { source: 'MARKET', timestampUtc: '2026-01-03T10:00:00.000Z', rates: [{ currency: 'USD', buy: 133, sell: 135 }] });
    expect(changed.statusCode).toBe(201);
    const after = await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/history?currency=USD&days=5', headers: { 'if-none-match': etag } });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
  });

  it('answers 400 naming the field for bad input', async () => {
    const cases: [string, string][] = [
      ['days=5', 'query.currency'],
      ['currency=XYZ', 'query.currency'],
      ['currency=USD,EUR', 'query.currency'],
      ['currency=USD&startDate=2026-01-03&endDate=2026-01-01', 'query.startDate'],
      ['currency=USD&days=3651', 'query.days'],
      ['currency=USD&days=0', 'query.days'],
      ['currency=USD&startDate=2026-13-01', 'query.startDate'],
      ['currency=USD&source=BANK', 'query.source'],
      ['currency=USD&from=2026-01-01', 'query.from'],
    ];
    for (const [query, path] of cases) {
      const response = await history(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path), query).toContain(path);
    }
  });
});
