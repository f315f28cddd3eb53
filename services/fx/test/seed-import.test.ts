import { afterEach, describe, expect, it } from 'vitest';
import { loadFxConfig } from '../src/config.js';
import { rateAlertListener } from '../src/domain/alerts/evaluate-alerts.js';
import { importRatesCsv } from '../src/domain/rates/csv-import.js';
import { generateDemoRates, isDatabaseEmpty } from '../src/domain/rates/demo-seed.js';
import { seedEmbeddedFirstStart } from '../src/domain/rates/embedded-first-start.js';
import { buildTestApp, type TestApp } from './helpers.js';

const opened: TestApp[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((testApp) => testApp.close()));
});

describe('demo history', () => {
  const options = { now: new Date('2026-03-01T12:00:00.000Z'), days: 120, redenominationDate: new Date('2026-01-01T00:00:00.000Z'), redenominationFactor: 100 };

  it('is deterministic, spans the redenomination in the pound of each date, with CBS below market', () => {
    const rows = generateDemoRates(options);
    expect(generateDemoRates(options)).toEqual(rows);
    const days = new Set(rows.map((row) => row.observedAt.toISOString().slice(0, 10)));
    expect(days.size).toBe(120);
    expect(new Set(rows.map((row) => row.currency)).size).toBe(18);
    const usdMarket = rows.filter((row) => row.currency === 'USD' && row.source === 'MARKET');
    const before = usdMarket.filter((row) => row.observedAt < options.redenominationDate);
    const after = usdMarket.filter((row) => row.observedAt >= options.redenominationDate);
    expect(before.length).toBe(60);
    const mids = (points: typeof rows) => points.map((row) => Number(row.mid));
    expect(Math.min(...mids(before))).toBeGreaterThanOrEqual(11_000);
    expect(Math.max(...mids(before))).toBeLessThanOrEqual(15_000);
    expect(Math.min(...mids(after))).toBeGreaterThanOrEqual(110);
    expect(Math.max(...mids(after))).toBeLessThanOrEqual(150);
    const cbs = rows.filter((row) => row.currency === 'USD' && row.source === 'CBS');
    cbs.forEach((row, index) => expect(Number(row.mid)).toBeLessThan(Number(usdMarket[index]?.mid)));
  });

  it('is loaded at first start only on the embedded default, and /health then says demo', async () => {
    const testApp = await buildTestApp();
    opened.push(testApp);
    const db = testApp.dependencies.database.db;
    expect(await isDatabaseEmpty(db)).toBe(true);
    expect(await seedEmbeddedFirstStart(db, loadFxConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/none', SECRETS_KEY: 'a'.repeat(64) }), new Date())).toBe(false);
    expect(await isDatabaseEmpty(db)).toBe(true);
    expect(await seedEmbeddedFirstStart(db, loadFxConfig({}), new Date())).toBe(true);
    expect(await seedEmbeddedFirstStart(db, loadFxConfig({}), new Date())).toBe(false);
    const health = await testApp.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(health.json()).toMatchObject({ status: 'ok', demo: true });
    const latest = (await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest?lang=en' })).json();
    expect(latest.effectiveRates).toHaveLength(18);
    expect(latest.cbsRates).toHaveLength(18);
  });
});

describe('CSV import', () => {
  it('ingests batches through the validated path and names the bad line or item', async () => {
    const testApp = await buildTestApp();
    opened.push(testApp);
    const db = testApp.dependencies.database.db;
    const now = new Date('2026-03-10T00:00:00.000Z');
    const csv = 'source,currency,buy,sell,mid,timestampUtc\nMARKET,USD,118,120,,2026-03-01T09:00:00Z\nMARKET,eur,128,131,129,2026-03-01T09:00:00Z\nCBS,USD,110,111,,2026-03-02T09:00:00Z\n';
    expect(await db.transaction((tx) => importRatesCsv(tx, csv, { force: false, now, onRateChanged: rateAlertListener() }))).toEqual({ rows: 3, batches: 2 });
    const latest = (await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest?currencies=EUR' })).json();
    expect(latest.marketRates[0]).toMatchObject({ currency: 'EUR', mid: 129, timestampUtc: '2026-03-01T09:00:00.000Z' });

    const badLine = db.transaction((tx) => importRatesCsv(tx, 'source,currency,buy,sell,mid,timestampUtc\nFOO,USD,1,2,,2026-03-01T09:00:00Z\n', { force: false, now, onRateChanged: rateAlertListener() }));
    await expect(badLine).rejects.toMatchObject({ status: 400, extensions: { errors: [{ path: 'line 2' }] } });
    // A real CSV reader: quoted cells and a byte-order mark are read; a stray quote or a row with
    // a cell too many is refused as a whole, naming its line, and nothing of the file is stored.
    const quoted = '\uFEFFsource,currency,buy,sell,mid,timestampUtc\r\n"MARKET","GBP","150","152","",2026-03-01T09:00:00Z\r\n';
    expect(await db.transaction((tx) => importRatesCsv(tx, quoted, { force: false, now, onRateChanged: rateAlertListener() }))).toEqual({ rows: 1, batches: 1 });
    const strayQuote = db.transaction((tx) => importRatesCsv(tx, 'source,currency,buy,sell,mid,timestampUtc\nMARKET,USD,118,120,,2026-03-04T09:00:00Z\nMARKET,"CHF,1,2,,2026-03-04T09:00:00Z\n', { force: false, now, onRateChanged: rateAlertListener() }));
    await expect(strayQuote).rejects.toMatchObject({ status: 400, extensions: { errors: [{ path: expect.stringMatching(/^line \d+$/) }] } });
    const extraCell = db.transaction((tx) => importRatesCsv(tx, 'source,currency,buy,sell,mid,timestampUtc\nMARKET,USD,118,120,,2026-03-04T09:00:00Z,extra\n', { force: false, now, onRateChanged: rateAlertListener() }));
    await expect(extraCell).rejects.toMatchObject({ status: 400, extensions: { errors: [{ path: 'line 2' }] } });
    const after = (await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest?currencies=USD' })).json();
    expect(after.marketRates[0]).toMatchObject({ currency: 'USD', timestampUtc: '2026-03-01T09:00:00.000Z' });
    const jump = db.transaction((tx) => importRatesCsv(tx, 'source,currency,buy,sell,mid,timestampUtc\nMARKET,USD,300,310,,2026-03-03T09:00:00Z\n', { force: false, now, onRateChanged: rateAlertListener() }));
    await expect(jump).rejects.toMatchObject({ status: 400, extensions: { errors: [{ path: 'rates[0].mid' }] } });
  });
});
