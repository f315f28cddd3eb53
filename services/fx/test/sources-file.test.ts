import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectCliFailure, runCliProcess } from '@svc/service-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSourcesFile } from '../src/sources/sources-file.js';
import { fixture, startFixtureServer, type FixtureServer } from './fixture-server.js';
import { buildTestApp, manualClock } from './helpers.js';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fx-sources-file-'));
let upstream: FixtureServer;

beforeAll(async () => {
  upstream = await startFixtureServer({
    '/exchange-a.json': { status: 200, body: fixture('exchange-a.json') },
    '/market.csv': { status: 200, body: fixture('market-rates.csv'), headers: { 'content-type': 'text/csv' } },
    '/api/v3/ticker/24hr': { status: 200, body: fixture('binance-ticker-24hr.json') },
    '/0/public/Ticker': { status: 200, body: fixture('kraken-ticker.json') },
    '/api/XAU/USD': { status: 200, body: fixture('goldapi-xau-usd.json') },
  });
});
afterAll(() => upstream.close());

function writeSources(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const declarative = () => `sources:
  - name: exchange-a
    kind: crypto
    url: ${upstream.base}/exchange-a.json
    headers: { X-Key: "\${EXCHANGE_A_KEY}" }
    mapping: { items: "$.data[*]", symbol: "$.sym", priceUsd: "$.usd", timestampUtc: "$.at" }
  - name: market-csv
    kind: rates
    rateSource: MARKET
    url: ${upstream.base}/market.csv
    format: csv
    maxAgeSeconds: 7200
    mapping: { currency: "$.currency", buy: "$.buy", sell: "$.sell", timestampUtc: "$.updated" }
`;

describe('the sources file', () => {
  it('ingests a declarative JSON and a CSV source, the header secret taken from the environment', async () => {
    const file = writeSources('declarative.yaml', declarative());
    const clock = manualClock('2026-03-10T10:00:00.000Z');
    const testApp = await buildTestApp({ FX_SOURCES_FILE: file, FX_SOURCES_ALLOW_PRIVATE_TARGETS: 'true' }, { clock: clock.now, sourcesEnv: { EXCHANGE_A_KEY: 'secret-from-env' } });
    try {
      await testApp.app.upstreamSources?.pollDue();
      expect(upstream.headers('/exchange-a.json')?.['x-key']).toBe('secret-from-env');
      const crypto = (await testApp.app.inject({ method: 'GET', url: '/api/v1/crypto/latest' })).json<{ prices: unknown[] }>();
      expect(crypto.prices).toEqual([
        expect.objectContaining({ symbol: 'BTC', name: 'Bitcoin', priceUsd: 67210.5, timestampUtc: '2026-03-10T09:58:00.000Z' }),
        expect.objectContaining({ symbol: 'ETH', priceUsd: 3541 }),
      ]);
      const rates = (await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest?currencies=USD,EUR' })).json<{ marketRates: unknown[] }>();
      expect(rates.marketRates).toEqual([
        expect.objectContaining({ currency: 'EUR', buy: 12900, sell: 13100 }),
        expect.objectContaining({ currency: 'USD', buy: 11800, sell: 12000, mid: 11900, timestampUtc: '2026-03-10T09:30:00.000Z' }),
      ]);
    } finally {
      await testApp.close();
    }
  }, 60_000);

  it('converts Binance USDT prices through the USDT/USD price of another source, and derives every karat and unit of gold', async () => {
    const file = writeSources(
      'connectors.yaml',
      `sources:
  - { name: binance, kind: crypto, connector: binance, symbols: [BTC, ETH], baseUrl: "${upstream.base}" }
  - { name: kraken, kind: crypto, connector: kraken, symbols: [BTC, ETH, USDT], baseUrl: "${upstream.base}" }
  - { name: goldapi, kind: gold, connector: goldapi, apiKeyEnv: GOLDAPI_KEY, baseUrl: "${upstream.base}" }
  - { name: paxg-kraken, kind: gold, connector: kraken, baseUrl: "${upstream.base}" }
`,
    );
    const clock = manualClock('2026-03-10T10:00:00.000Z');
    const testApp = await buildTestApp({ FX_SOURCES_FILE: file, FX_SOURCES_ALLOW_PRIVATE_TARGETS: 'true' }, { clock: clock.now, sourcesEnv: { GOLDAPI_KEY: 'goldapi-test-key' } });
    try {
      await testApp.app.upstreamSources?.pollDue();
      const crypto = (await testApp.app.inject({ method: 'GET', url: '/api/v1/crypto/latest' })).json<{ prices: { symbol: string; priceUsd: number }[] }>();
      // BTC: median of Kraken 67250 and Binance 67206.01 USDT × 1.0001 (Kraken's USDT/USD) = 67212.73; USDT is shown to the cent.
      expect(crypto.prices.map((price) => [price.symbol, price.priceUsd])).toEqual([
        ['BTC', 67231.37],
        ['ETH', 3543.82],
        ['USDT', 1],
      ]);
      const gold = (await testApp.app.inject({ method: 'GET', url: '/api/v1/gold/latest?lang=en' })).json<{ prices: { unit: string; karat: number; priceUsd: number }[] }>();
      // Median of goldapi 2352.41 and the PAXG proxy 2358 (within 5%): 2355.205 per fine ounce.
      expect(gold.prices.map((price) => [price.unit, price.karat, price.priceUsd])).toEqual([
        ['gram', 24, 75.72],
        ['gram', 22, 69.41],
        ['gram', 21, 66.26],
        ['gram', 18, 56.79],
        ['ounce', 24, 2355.21],
        ['ounce', 22, 2158.94],
        ['ounce', 21, 2060.8],
        ['ounce', 18, 1766.4],
      ]);
      const upstreams = (await testApp.app.inject({ method: 'GET', url: '/api/v1/health' })).json<{ checks: { upstreams: { name: string; proxy: boolean; contributing: boolean }[] } }>().checks.upstreams;
      expect(upstreams.map((entry) => [entry.name, entry.proxy, entry.contributing])).toEqual([
        ['binance', false, true],
        ['kraken', false, true],
        ['goldapi', false, true],
        ['paxg-kraken', true, true],
      ]);
    } finally {
      await testApp.close();
    }
  }, 60_000);

  it('fails start-up with a message naming the line of the problem', async () => {
    const cases: [string, RegExp][] = [
      ['sources:\n  - name: a\n    kind: coins\n    url: https://example.net/x\n', /bad\.yaml line 3: sources\.0\.kind Invalid option/],
      ['sources:\n  - name: a\n    kind: crypto\n    url: https://example.net/x\n    mapping: { items: "$.data[*]", priceUsd: "$.usd" }\n', /bad\.yaml line 5: sources\.0\.mapping\.symbol required for kind crypto/],
      ['sources:\n  - name: a\n    kind: crypto\n    connector: binance\n    headers: { X-Key: "abc123" }\n', /bad\.yaml line 2: sources\.0\.headers\.X-Key must take its value from the environment/],
      ['sources:\n  - name: a\n    kind: gold\n    connector: goldapi\n', /bad\.yaml line 4: sources\.0\.connector goldapi needs apiKeyEnv/],
      ['sources:\n  - name: a\n   kind: crypto\n', /bad\.yaml line \d+: /],
      ['sources:\n  - { name: a, kind: crypto, connector: kraken }\n  - { name: a, kind: crypto, connector: coinbase }\n', /bad\.yaml line 3: sources\.1\.name a is used twice/],
    ];
    for (const [text, message] of cases) expect(() => parseSourcesFile(text, 'bad.yaml', {}), text).toThrow(message);
    const file = writeSources('bad.yaml', cases[0]?.[0] ?? '');
    await expect(buildTestApp({ FX_SOURCES_FILE: file })).rejects.toThrow(/bad\.yaml line 3: sources\.0\.kind/);
  });

  it('sources:test prints what a source would give, without ingesting', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'fx-sources-cli-')), FX_SOURCES_FILE: writeSources('cli.yaml', declarative()), FX_SOURCES_ALLOW_PRIVATE_TARGETS: 'true', EXCHANGE_A_KEY: 'secret-from-env' };
    const result = await runCliProcess({ cwd: serviceDir, args: ['sources:test', '--name', 'market-csv'], env });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({
      command: 'sources:test',
      name: 'market-csv',
      ingested: false,
      quotes: [
        { key: 'rates:MARKET:USD', value: 11900, buy: 11800, sell: 12000, observedAt: '2026-03-10T09:30:00.000Z' },
        { key: 'rates:MARKET:EUR', value: 13000, buy: 12900, sell: 13100 },
      ],
    });
    expectCliFailure(await runCliProcess({ cwd: serviceDir, args: ['sources:test', '--name', 'nope'], env }), /no source named nope; the file has exchange-a, market-csv/);
  }, 120_000);
});
