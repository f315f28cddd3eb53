import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@svc/db';
import type { ServiceApp } from '@svc/service-kit';
import { createTestDependencies } from '@svc/service-kit/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadFxConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { cryptoPrices, databaseSchema } from '../src/db/schema.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

/** The shortest interval a sources file accepts. */
const INTERVAL_MS = 5000;
/** Two instances fetching would hit the fixture twice within this. */
const MIN_GAP_MS = INTERVAL_MS - 500;

type Dependencies = Awaited<ReturnType<typeof createTestDependencies<typeof databaseSchema>>>;
let upstream: FixtureServer;
const dependencies: Dependencies[] = [];
const apps: ServiceApp[] = [];
let closeSecondPool: () => Promise<void> = async () => {};

const health = async (app: ServiceApp) =>
  (await app.inject({ method: 'GET', url: '/api/v1/health' })).json<{ checks: { upstreams: { name: string; stale: boolean; lastSuccessUtc: string | null; contributing: boolean }[] } }>().checks.upstreams;
const gaps = (times: number[]) => times.slice(1).map((time, index) => time - (times[index] ?? 0));
const fetching = () => apps.filter((app) => app.upstreamSources?.isFetching);

beforeAll(async () => {
  upstream = await startFixtureServer({ '/prices': { status: 200, body: JSON.stringify({ data: [{ sym: 'BTC', usd: 67000 }] }) } });
  const file = join(mkdtempSync(join(tmpdir(), 'fx-lease-')), 'sources.yaml');
  writeFileSync(file, `sources:\n  - { name: exchange-a, kind: crypto, url: "${upstream.base}/prices", intervalSeconds: 5, mapping: { items: "$.data[*]", symbol: "$.sym", priceUsd: "$.usd" } }\n`);
  const config = loadFxConfig({ LOG_LEVEL: 'silent', FX_SOURCES_FILE: file, FX_SOURCES_ALLOW_PRIVATE_TARGETS: 'true' });
  const first = await createTestDependencies({ schemaName, migrationsFolder, schema: databaseSchema });
  const second = await createTestDependencies({ schemaName, migrationsFolder, schema: databaseSchema });
  dependencies.push(first, second);
  // Two instances on one database: a pool of their own on PostgreSQL, the one embedded database otherwise.
  let shared = first.database;
  if (first.databaseUrl) {
    const pool = await openDatabase({ driver: 'postgres', url: first.databaseUrl, schemaName, migrationsFolder, schema: databaseSchema, skipMigrations: true, maxConnections: 3 });
    closeSecondPool = () => pool.close();
    shared = pool;
  }
  for (const deps of [first, { ...second, database: shared }]) {
    const app = await buildApp({ ...deps, config, env: {} });
    await app.listen({ host: '127.0.0.1', port: 0 });
    apps.push(app);
  }
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await closeSecondPool();
  for (const deps of dependencies) await deps.close();
  await upstream.close();
});

describe('several instances on one database', () => {
  it('fetch each source once per interval, and every instance reports what the fetching one saw', async () => {
    await expect.poll(() => upstream.hits('/prices'), { timeout: 3 * INTERVAL_MS, interval: 100 }).toBeGreaterThanOrEqual(3);
    expect(fetching()).toHaveLength(1);
    for (const gap of gaps(upstream.times('/prices'))) expect(gap).toBeGreaterThanOrEqual(MIN_GAP_MS);

    const [first, second] = apps;
    if (!first || !second) throw new Error('two apps expected');
    const [a, b] = [await health(first), await health(second)];
    expect(a).toEqual(b);
    expect(a).toMatchObject([{ name: 'exchange-a', stale: false, contributing: true }]);
    expect(a[0]?.lastSuccessUtc).not.toBeNull();
  });

  it('lets the other instance take over, on the same schedule, when the fetching one closes', async () => {
    const [leader] = fetching();
    if (!leader) throw new Error('no instance fetches');
    const survivor = apps.find((app) => app !== leader);
    if (!survivor) throw new Error('two apps expected');
    await leader.close();
    apps.splice(apps.indexOf(leader), 1);
    const before = upstream.hits('/prices');

    await expect.poll(() => upstream.hits('/prices'), { timeout: 3 * INTERVAL_MS, interval: 100 }).toBeGreaterThanOrEqual(before + 2);
    expect(survivor.upstreamSources?.isFetching).toBe(true);
    for (const gap of gaps(upstream.times('/prices'))) expect(gap).toBeGreaterThanOrEqual(MIN_GAP_MS);
    const last = upstream.times('/prices').at(-1) ?? 0;
    await expect.poll(async () => Date.parse((await health(survivor))[0]?.lastSuccessUtc ?? '') >= last - 1000, { timeout: INTERVAL_MS }).toBe(true);

    // One price row per fetch, not one per instance and fetch; the taker-over wrote nothing twice.
    const database = dependencies[0]?.database;
    if (!database) throw new Error('no database');
    await expect.poll(async () => (await database.db.select().from(cryptoPrices).where(eq(cryptoPrices.symbol, 'BTC'))).length, { timeout: INTERVAL_MS }).toBe(upstream.hits('/prices'));
  });
});
