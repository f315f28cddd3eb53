import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, manualClock, postRates, type TestApp } from './helpers.js';

// Hand-computed data: USD and EUR on 2025-12-31 in old pounds (100 old = 1 new from 2026-01-01), then in new ones.
const clock = manualClock('2026-02-10T12:00:00.000Z');
let testApp: TestApp;

async function seed() {
  const batches = [
    { source: 'MARKET', timestampUtc: '2025-12-31T10:00:00Z', rates: [{ currency: 'USD', buy: 1_299_000, sell: 1_301_000 }, { currency: 'EUR', buy: 1_490_000, sell: 1_510_000 }] },
    { source: 'MARKET', timestampUtc: '2026-01-02T10:00:00Z', force: true, rates: [{ currency: 'USD', buy: 13_050, sell: 13_150 }, { currency: 'EUR', buy: 15_100, sell: 15_300 }] },
    { source: 'CBS', timestampUtc: '2026-01-02T09:00:00Z', rates: [{ currency: 'USD', buy: 11_000, sell: 11_100 }] },
  ];
  for (const batch of batches) expect((await postRates(testApp, batch)).statusCode).toBe(201);
}

const get = (url: string, headers: Record<string, string> = {}) => testApp.app.inject({ method: 'GET', url, headers });

beforeAll(async () => {
  testApp = await buildTestApp({}, { clock: clock.now });
  await seed();
});
afterAll(() => testApp.close());

describe('GET /api/v1/convert', () => {
  it.each([
    ['USD→SYP at the market (effective) rate', 'from=USD&to=SYP&amount=250', { rate: 13_100, result: 3_275_000, source: 'MARKET', rateTimestampUtc: '2026-01-02T10:00:00.000Z' }],
    ['USD→SYP at the official rate', 'from=usd&to=SYP&amount=2&source=CBS', { rate: 11_050, result: 22_100, source: 'CBS', rateTimestampUtc: '2026-01-02T09:00:00.000Z' }],
    ['EUR→USD crossed through SYP: 15200 / 13100', 'from=EUR&to=USD&amount=100', { rate: 1.160305344, result: 116.0305344 }],
    ['SYP→USD: 1 / 13100 to 10 significant digits', 'from=SYP&to=USD&amount=1000', { rate: 0.00007633587786, result: 0.07633588 }],
    ['a day before the redenomination, in new pounds: 1 300 000 / 100', 'from=USD&to=SYP&amount=250&date=2025-12-31', { rate: 13_000, result: 3_250_000, rateTimestampUtc: '2025-12-31T10:00:00.000Z' }],
    ['2026-01-01 had no rate: the newest before it, rescaled', 'from=USD&to=SYP&amount=1&date=2026-01-01', { rate: 13_000, result: 13_000 }],
    ['a cross on an old day is unchanged by the rescaling: 1 500 000 / 1 300 000', 'from=EUR&to=USD&amount=10&date=2025-12-31', { rate: 1.153846154, result: 11.53846154 }],
    ['SYP to the old day’s EUR', 'from=SYP&to=EUR&amount=15000&date=2025-12-31', { rate: 0.00006666666667, result: 1.0 }],
  ])('%s', async (_name, query, expected) => {
    const response = await get(`/api/v1/convert?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject(expected);
    const body = response.json<{ amount: number; rate: number; result: number }>();
    expect(body.result).toBeCloseTo(body.amount * body.rate, 8);
  });

  it('answers 304 to its own ETag', async () => {
    const first = await get('/api/v1/convert?from=USD&to=SYP&amount=250');
    expect(first.headers.etag).toBeTruthy();
    expect((await get('/api/v1/convert?from=USD&to=SYP&amount=250', { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });

  it.each([
    ['an unknown code', 'from=XXX&to=SYP&amount=1', 'query.from'],
    ['an unknown target', 'from=USD&to=BTC&amount=1', 'query.to'],
    ['a missing amount', 'from=USD&to=SYP', 'query.amount'],
    ['a negative amount', 'from=USD&to=SYP&amount=-5', 'query.amount'],
    ['a zero amount', 'from=USD&to=SYP&amount=0', 'query.amount'],
    ['an absurd amount', 'from=USD&to=SYP&amount=10000000000000', 'query.amount'],
    ['an amount with an exponent', 'from=USD&to=SYP&amount=1e3', 'query.amount'],
    ['an amount that is not a number', 'from=USD&to=SYP&amount=abc', 'query.amount'],
    ['a future date', 'from=USD&to=SYP&amount=1&date=2026-02-11', 'query.date'],
    ['a bad date', 'from=USD&to=SYP&amount=1&date=2026-13-01', 'query.date'],
    ['an unknown source', 'from=USD&to=SYP&amount=1&source=BLACK', 'query.source'],
    ['an unknown parameter', 'from=USD&to=SYP&amount=1&base=USD', ''],
  ])('400 for %s', async (_name, query, path) => {
    const response = await get(`/api/v1/convert?${query}`);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    const problem = response.json<{ code: string; errors?: { path: string }[] }>();
    expect(problem.code).toBe('VALIDATION_ERROR');
    if (path) expect(problem.errors?.map((error) => error.path)).toContain(path);
  });

  it('404 when a currency has no rate on or before the date', async () => {
    const response = await get('/api/v1/convert?from=USD&to=SYP&amount=1&date=2025-06-01');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await get('/api/v1/convert?from=GBP&to=SYP&amount=1')).statusCode).toBe(404);
  });
});

describe('GET /api/v1/currencies', () => {
  it('lists the served codes with names, quoting sources and their span of history', async () => {
    const response = await get('/api/v1/currencies?lang=en');
    expect(response.statusCode).toBe(200);
    const { currencies } = response.json<{ currencies: { code: string; name: string; sources: string[]; firstDate: string | null; lastDate: string | null }[] }>();
    expect(currencies.find((currency) => currency.code === 'USD')).toEqual({ code: 'USD', name: 'US Dollar', sources: ['CBS', 'MARKET'], firstDate: '2025-12-31', lastDate: '2026-01-02' });
    expect(currencies.find((currency) => currency.code === 'EUR')).toEqual({ code: 'EUR', name: 'Euro', sources: ['MARKET'], firstDate: '2025-12-31', lastDate: '2026-01-02' });
    expect(currencies.find((currency) => currency.code === 'GBP')).toEqual({ code: 'GBP', name: 'British Pound', sources: [], firstDate: null, lastDate: null });
    expect(currencies).toHaveLength(18);
  });

  it('names them in the requested language, and refuses an unknown one', async () => {
    const names = async (lang: string) => (await get(`/api/v1/currencies?lang=${lang}`)).json<{ currencies: { code: string; name: string }[] }>().currencies.find((currency) => currency.code === 'USD')?.name;
    expect(await names('ar')).toBe('دولار أمريكي');
    expect(await names('de')).toBe('US-Dollar');
    expect(await names('kmr')).toBe('dolarê amerîkî');
    const bad = await get('/api/v1/currencies?lang=xx');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
  });
});
