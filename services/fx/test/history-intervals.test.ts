import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryPoint } from '@svc/fx-client';
import { buildTestApp, manualClock, postRates, type TestApp } from './helpers.js';

const clock = manualClock('2026-02-10T12:00:00.000Z');
let testApp: TestApp;

beforeAll(async () => {
  testApp = await buildTestApp({}, { clock: clock.now });
  // USD market mids; before 2026-01-01 in old pounds (100 old = 1 new).
  const observations: [string, number][] = [
    ['2025-12-29T09:00:00Z', 13_000],
    ['2025-12-31T09:00:00Z', 13_500],
    ['2025-12-31T15:00:00Z', 12_800],
    ['2026-01-02T09:00:00Z', 131],
    ['2026-01-05T09:00:00Z', 133],
    ['2026-01-07T09:00:00Z', 129],
    ['2026-02-02T09:00:00Z', 140],
  ];
  for (const [timestampUtc, mid] of observations) {
    const response = await postRates(testApp, { source: 'MARKET', timestampUtc, force: true, rates: [{ currency: 'USD', buy: mid, sell: mid }] });
    expect(response.statusCode).toBe(201);
  }
});
afterAll(() => testApp.close());

const RANGE = 'currency=USD&startDate=2025-12-29&endDate=2026-02-08';
const get = (query: string, accept?: string) => testApp.app.inject({ method: 'GET', url: `/api/v1/rates/history?${query}`, headers: accept ? { accept } : {} });
const flat = (date: string, value: number, rescaled = false) => ({ date, buy: value, sell: value, mid: value, open: value, high: value, low: value, close: value, denomination: 'SYP', rescaled });

describe('GET /api/v1/rates/history?interval=', () => {
  it('folds days into ISO weeks starting on Monday, across the redenomination in the current pound', async () => {
    const response = await get(`${RANGE}&interval=week`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ interval: 'week', startDate: '2025-12-29', endDate: '2026-02-08' });
    expect(response.json<{ points: HistoryPoint[] }>().points).toEqual([
      { date: '2025-12-29', buy: 131, sell: 131, mid: 131, open: 130, high: 135, low: 128, close: 131, denomination: 'SYP', rescaled: true },
      { date: '2026-01-05', buy: 129, sell: 129, mid: 129, open: 133, high: 133, low: 129, close: 129, denomination: 'SYP', rescaled: false },
      flat('2026-02-02', 140),
    ]);
  });

  it('folds days into calendar months starting on the 1st', async () => {
    expect((await get(`${RANGE}&interval=month`)).json<{ points: HistoryPoint[] }>().points).toEqual([
      { date: '2025-12-01', buy: 128, sell: 128, mid: 128, open: 130, high: 135, low: 128, close: 128, denomination: 'SYP', rescaled: true },
      { date: '2026-01-01', buy: 129, sell: 129, mid: 129, open: 131, high: 133, low: 129, close: 129, denomination: 'SYP', rescaled: false },
      flat('2026-02-01', 140),
    ]);
  });

  it('splits a week that spans the redenomination when the values are as published', async () => {
    const points = (await get('currency=USD&startDate=2025-12-29&endDate=2026-01-04&interval=week&denomination=original')).json<{ points: HistoryPoint[] }>().points;
    expect(points).toEqual([
      { date: '2025-12-29', buy: 12_800, sell: 12_800, mid: 12_800, open: 13_000, high: 13_500, low: 12_800, close: 12_800, denomination: 'SYP_OLD', rescaled: false },
      flat('2026-01-02', 131),
    ]);
  });

  it('keeps one point a day by default', async () => {
    const body = (await get(RANGE)).json<{ interval: string; points: HistoryPoint[] }>();
    expect(body.interval).toBe('day');
    expect(body.points.map((point) => point.date)).toEqual(['2025-12-29', '2025-12-31', '2026-01-02', '2026-01-05', '2026-01-07', '2026-02-02']);
  });

  it('refuses an unknown interval with a problem', async () => {
    const response = await get(`${RANGE}&interval=year`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('GET /api/v1/rates/history as CSV and NDJSON', () => {
  it('serves RFC 4180 CSV with a header row naming the fields, which parses back to the JSON points', async () => {
    const json = (await get(`${RANGE}&interval=week`)).json<{ points: HistoryPoint[] }>().points;
    const response = await get(`${RANGE}&interval=week`, 'text/csv');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers.vary).toContain('Accept');
    expect(response.body.endsWith('\r\n')).toBe(true);
    const [header = '', ...rows] = response.body.slice(0, -2).split('\r\n');
    const fields = header.split(',');
    expect(fields).toEqual(['date', 'buy', 'sell', 'mid', 'open', 'high', 'low', 'close', 'denomination', 'rescaled']);
    const parsed = rows.map((row) =>
      Object.fromEntries(row.split(',').map((cell, index) => {
        const field = fields[index] ?? '';
        const value = field === 'date' || field === 'denomination' ? cell : field === 'rescaled' ? cell === 'true' : Number(cell);
        return [field, value];
      })),
    );
    expect(parsed).toEqual(json);
  });

  it('serves one JSON point per line as NDJSON', async () => {
    const json = (await get(`${RANGE}&interval=month`)).json<{ points: HistoryPoint[] }>().points;
    const response = await get(`${RANGE}&interval=month`, 'application/x-ndjson');
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = response.body.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line) as HistoryPoint)).toEqual(json);
  });

  it('tags each representation with its own ETag and answers 304 to it', async () => {
    const csv = await get(`${RANGE}&interval=week`, 'text/csv');
    const json = await get(`${RANGE}&interval=week`, 'application/json');
    expect(csv.headers.etag).not.toBe(json.headers.etag);
    const again = await testApp.app.inject({ method: 'GET', url: `/api/v1/rates/history?${RANGE}&interval=week`, headers: { accept: 'text/csv', 'if-none-match': String(csv.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('follows Accept preferences and falls back to JSON', async () => {
    expect((await get(RANGE, 'application/json;q=0.5, text/csv')).headers['content-type']).toContain('text/csv');
    expect((await get(RANGE, 'text/csv;q=0.2, application/json')).headers['content-type']).toContain('application/json');
    expect((await get(RANGE, 'text/html')).headers['content-type']).toContain('application/json');
  });
});
