import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cryptoPrices } from '../src/db/schema.js';
import type { SourceRunner } from '../src/workers/source-runner.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { buildTestApp, manualClock, type TestApp } from './helpers.js';

const clock = manualClock('2026-03-10T10:00:00.000Z');
let upstream: FixtureServer;
let testApp: TestApp;
let runner: SourceRunner;

const quote = (usd: number, at = clock.now().toISOString()) => ({ status: 200, body: JSON.stringify({ data: [{ sym: 'BTC', usd, at }] }) });
const NAMES = ['good-a', 'good-b', 'liar', 'stale', 'down'] as const;

beforeAll(async () => {
  upstream = await startFixtureServer();
  const dir = mkdtempSync(join(tmpdir(), 'fx-sources-'));
  const file = join(dir, 'sources.yaml');
  const entries = NAMES.map((name) => `  - { name: ${name}, kind: crypto, url: "${upstream.base}/${name}", mapping: { items: "$.data[*]", symbol: "$.sym", priceUsd: "$.usd", timestampUtc: "$.at" } }`);
  writeFileSync(file, `sources:\n${entries.join('\n')}\naggregation:\n  maxDeviationPercent: 5\n  maxAgeSeconds: 600\n`);
  testApp = await buildTestApp({ FX_SOURCES_FILE: file, FX_SOURCES_ALLOW_PRIVATE_TARGETS: 'true' }, { clock: clock.now });
  const found = testApp.app.upstreamSources;
  if (!found) throw new Error('the sources runner is not configured');
  runner = found;
});
afterAll(async () => {
  await testApp.close();
  await upstream.close();
});

const btc = async () => (await testApp.app.inject({ method: 'GET', url: '/api/v1/crypto/latest' })).json<{ prices: { symbol: string; priceUsd: number; timestampUtc: string }[] }>().prices.find((price) => price.symbol === 'BTC');
const health = async () => (await testApp.app.inject({ method: 'GET', url: '/api/v1/health' })).json<{ status: string; checks: { upstreams: { name: string; stale: boolean; contributing: boolean; lastError: string | null; nextAttemptUtc: string }[]; stalePrices: string[] } }>();
const upstreamNamed = (body: Awaited<ReturnType<typeof health>>, name: string) => body.checks.upstreams.find((entry) => entry.name === name);

describe('combining several sources', () => {
  it('serves the median of the agreeing fresh quotes: one down, one stale and one 10% off are left out', async () => {
    upstream.answer('/good-a', quote(67000));
    upstream.answer('/good-b', quote(67100));
    upstream.answer('/liar', quote(73700));
    upstream.answer('/stale', quote(60000, '2026-03-10T08:00:00.000Z'));
    upstream.answer('/down', { status: 502, body: 'bad gateway' });
    await runner.pollDue();

    expect(await btc()).toMatchObject({ priceUsd: 67050, timestampUtc: '2026-03-10T10:00:00.000Z' });
    const rows = await testApp.dependencies.database.db.select({ contributors: cryptoPrices.contributors }).from(cryptoPrices).where(eq(cryptoPrices.symbol, 'BTC'));
    expect(rows).toEqual([{ contributors: ['good-a', 'good-b'] }]);
    const body = await health();
    expect(body.status).toBe('degraded');
    expect(body.checks.upstreams.map((entry) => [entry.name, entry.stale, entry.contributing])).toEqual([
      ['good-a', false, true],
      ['good-b', false, true],
      ['liar', false, false],
      ['stale', true, false],
      ['down', true, false],
    ]);
    expect(upstreamNamed(body, 'down')?.lastError).toBe('answered 502');
    expect(body.checks.stalePrices).toEqual([]);
  });

  it('keeps the last value with its true time, marks it stale and answers 200 when every source is down', async () => {
    for (const name of NAMES) upstream.answer(`/${name}`, { status: 500, body: 'down' });
    clock.advance(3_600_000);
    await runner.pollDue();
    expect(await btc()).toMatchObject({ priceUsd: 67050, timestampUtc: '2026-03-10T10:00:00.000Z' });
    const body = await health();
    expect(body.status).toBe('degraded');
    expect(body.checks.upstreams.every((entry) => entry.stale && !entry.contributing)).toBe(true);
    expect(body.checks.stalePrices).toEqual(['crypto:BTC']);
    expect(await testApp.dependencies.database.db.select().from(cryptoPrices).where(eq(cryptoPrices.symbol, 'BTC'))).toHaveLength(1);
  });

  it('withholds a price when fewer than two of three or more sources agree', async () => {
    clock.advance(7_200_000);
    upstream.answer('/good-a', quote(67000));
    upstream.answer('/liar', quote(73700));
    await runner.pollDue();
    expect(await btc()).toMatchObject({ priceUsd: 67050, timestampUtc: '2026-03-10T10:00:00.000Z' });
    expect((await health()).checks.stalePrices).toEqual(['crypto:BTC']);
  });

  it('backs off a source answering 429 for its Retry-After, then resumes', async () => {
    clock.advance(7_200_000);
    for (const name of NAMES) upstream.answer(`/${name}`, quote(67200));
    upstream.answer('/down', { status: 429, body: 'slow down', headers: { 'retry-after': '900' } });
    await runner.pollDue();
    const hitsAfter429 = upstream.hits('/down');
    const limited = upstreamNamed(await health(), 'down');
    expect(limited?.lastError).toBe('answered 429 (rate limited)');
    const nextAttempt = new Date(limited?.nextAttemptUtc ?? 0).getTime();
    expect(nextAttempt - clock.now().getTime(), 'at least its Retry-After').toBeGreaterThanOrEqual(900_000);
    expect(await btc()).toMatchObject({ priceUsd: 67200 });

    upstream.answer('/down', quote(67200));
    clock.advance(600_000);
    await runner.pollDue();
    expect(upstream.hits('/down'), 'still inside its Retry-After').toBe(hitsAfter429);
    expect(upstream.hits('/good-a')).toBeGreaterThan(hitsAfter429);

    clock.set(new Date(nextAttempt).toISOString());
    for (const name of NAMES) upstream.answer(`/${name}`, quote(67200));
    await runner.pollDue();
    expect(upstream.hits('/down')).toBe(hitsAfter429 + 1);
    const resumed = upstreamNamed(await health(), 'down');
    expect(resumed).toMatchObject({ lastError: null, stale: false, contributing: true });
    const metrics = await testApp.app.metrics.scrape();
    expect(metrics).toMatch(/fx_source_fetches_total\{source="down",outcome="rate_limited",service="fx"\} 1\n/);
    expect(metrics).toMatch(/fx_source_age_seconds\{source="good-a",service="fx"\} 0\n/);
  });

  it('refuses a malformed payload whole: nothing of it is ingested', async () => {
    clock.advance(7_200_000);
    const before = await btc();
    upstream.answer('/good-a', { status: 200, body: JSON.stringify({ data: [{ sym: 'BTC', usd: 99 }, { sym: 'ETH', usd: 'n/a' }] }) });
    for (const name of ['good-b', 'liar', 'stale', 'down']) upstream.answer(`/${name}`, { status: 200, body: '{"data": "nothing"}' });
    await runner.pollDue();
    expect(upstreamNamed(await health(), 'good-a')?.lastError).toBe('payload refused (good-a: record 1 priceUsd ($.usd) Invalid input: expected number, received NaN)');
    expect(await btc()).toEqual(before);
  });
});
