import { createGuardedDispatcher } from '@svc/outbound-http';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchSourceQuotes } from '../src/sources/fetch-source.js';
import { parseSourcesFile, type ResolvedSource } from '../src/sources/sources-file.js';
import { fixture, startFixtureServer, type FixtureServer } from './fixture-server.js';

let upstream: FixtureServer;
let dispatcher: Dispatcher;
const now = new Date('2026-03-10T10:00:00.000Z');
const env = { GOLDAPI_KEY: 'goldapi-test-key', METALS_KEY: 'metals-test-key', CG_KEY: 'cg-test-key' };

beforeAll(async () => {
  upstream = await startFixtureServer({
    '/api/v3/ticker/24hr': { status: 200, body: fixture('binance-ticker-24hr.json') },
    '/0/public/Ticker': { status: 200, body: fixture('kraken-ticker.json') },
    '/v2/exchange-rates': { status: 200, body: fixture('coinbase-exchange-rates.json') },
    '/api/v3/simple/price': { status: 200, body: fixture('coingecko-simple-price.json') },
    '/api/XAU/USD': { status: 200, body: fixture('goldapi-xau-usd.json') },
    '/v1/latest': { status: 200, body: fixture('metalsdev-latest.json') },
  });
  dispatcher = await createGuardedDispatcher({ allowPrivateTargets: true });
});
afterAll(async () => {
  await dispatcher.close();
  await upstream.close();
});

function source(entry: string): ResolvedSource {
  const file = parseSourcesFile(`sources:\n  - ${entry.replaceAll('\n', '\n    ')}\n    baseUrl: ${upstream.base}\n`, 'sources.yaml', env);
  const [parsed] = file.sources;
  if (!parsed) throw new Error('no source');
  return parsed;
}
const fetchOnce = (entry: string) => fetchSourceQuotes(source(entry), { dispatcher, allowPrivateTargets: true, timeoutMs: 5000, now: () => now });
const summary = (quotes: Awaited<ReturnType<typeof fetchOnce>>['quotes']) =>
  quotes.map((quote) => ({ key: quote.key, value: Number(quote.value.toFixed(4)), denomination: quote.denomination, change: quote.changePercent24h === undefined ? undefined : Number(quote.changePercent24h.toFixed(3)), at: quote.observedAt.toISOString(), ...(quote.proxy ? { proxy: true } : {}) }));

describe('built-in connectors against their documented payloads', () => {
  it('binance: USDT prices with the 24-hour change and close time, symbols mapped from BTCUSDT', async () => {
    const { quotes } = await fetchOnce('name: bn\nkind: crypto\nconnector: binance\nsymbols: [BTC, ETH]');
    expect(summary(quotes)).toEqual([
      { key: 'crypto:BTC', value: 67206.01, denomination: 'USDT', change: -0.141, at: '2026-03-10T09:59:00.000Z' },
      { key: 'crypto:ETH', value: 3542.19, denomination: 'USDT', change: 1.177, at: '2026-03-10T09:59:00.000Z' },
    ]);
    expect(upstream.headers('/api/v3/ticker/24hr')?.['user-agent']).toMatch(/^partner-services-fx-sources\//);
  });

  it('kraken: XBT and the legacy pair names mapped back, change against the open', async () => {
    const { quotes } = await fetchOnce('name: kr\nkind: crypto\nconnector: kraken\nsymbols: [BTC, ETH, USDT]');
    expect(summary(quotes)).toEqual([
      { key: 'crypto:BTC', value: 67250, denomination: 'USD', change: 0.493, at: now.toISOString() },
      { key: 'crypto:ETH', value: 3545.1, denomination: 'USD', change: 1.289, at: now.toISOString() },
      { key: 'crypto:USDT', value: 1.0001, denomination: 'USD', change: 0.01, at: now.toISOString() },
    ]);
  });

  it('coinbase: USD prices inverted from the exchange rates', async () => {
    const { quotes } = await fetchOnce('name: cb\nkind: crypto\nconnector: coinbase\nsymbols: [BTC, SOL, USDT]');
    expect(summary(quotes)).toEqual([
      { key: 'crypto:BTC', value: 67199.785, denomination: 'USD', change: undefined, at: now.toISOString() },
      { key: 'crypto:SOL', value: 145, denomination: 'USD', change: undefined, at: now.toISOString() },
      { key: 'crypto:USDT', value: 1.0001, denomination: 'USD', change: undefined, at: now.toISOString() },
    ]);
  });

  it('coingecko: ids mapped to symbols, the optional key sent in its header', async () => {
    const { quotes } = await fetchOnce('name: cg\nkind: crypto\nconnector: coingecko\nsymbols: [BTC, ETH]\napiKeyEnv: CG_KEY');
    expect(summary(quotes)).toEqual([
      { key: 'crypto:BTC', value: 67187.33, denomination: 'USD', change: 3.638, at: '2026-03-10T09:58:40.000Z' },
      { key: 'crypto:ETH', value: 3540.5, denomination: 'USD', change: 1.204, at: '2026-03-10T09:58:35.000Z' },
    ]);
    expect(upstream.headers('/api/v3/simple/price')?.['x-cg-demo-api-key']).toBe('cg-test-key');
  });

  it('goldapi and metals.dev: the fine troy ounce in USD, keyed; an exchange as gold is a labelled PAXG proxy', async () => {
    expect(summary((await fetchOnce('name: ga\nkind: gold\nconnector: goldapi\napiKeyEnv: GOLDAPI_KEY')).quotes)).toEqual([{ key: 'gold:XAU', value: 2352.41, denomination: 'USD', change: 0.46, at: '2026-03-10T09:55:00.000Z' }]);
    expect(upstream.headers('/api/XAU/USD')?.['x-access-token']).toBe('goldapi-test-key');
    expect(summary((await fetchOnce('name: md\nkind: gold\nconnector: metalsdev\napiKeyEnv: METALS_KEY')).quotes)).toEqual([{ key: 'gold:XAU', value: 2350.9, denomination: 'USD', change: undefined, at: '2026-03-10T09:55:01.245Z' }]);
    expect(summary((await fetchOnce('name: kg\nkind: gold\nconnector: kraken')).quotes)).toEqual([{ key: 'gold:XAU', value: 2358, denomination: 'USD', change: 0.597, at: now.toISOString(), proxy: true }]);
  });

  it('refuses malformed and error payloads, naming what is wrong', async () => {
    upstream.answer('/api/v3/ticker/24hr', { status: 200, body: '[{"symbol":"BTCUSDT","lastPrice":67206.01,"priceChangePercent":"1","closeTime":1}]' });
    await expect(fetchOnce('name: bn\nkind: crypto\nconnector: binance')).rejects.toThrow(/payload refused \(0\.lastPrice: /);
    upstream.answer('/0/public/Ticker', { status: 200, body: '{"error":["EQuery:Unknown asset pair"]}' });
    await expect(fetchOnce('name: kr\nkind: crypto\nconnector: kraken')).rejects.toThrow(/EQuery:Unknown asset pair/);
    upstream.answer('/v2/exchange-rates', { status: 200, body: 'not json' });
    await expect(fetchOnce('name: cb\nkind: crypto\nconnector: coinbase')).rejects.toThrow(/unreadable json payload/);
    upstream.answer('/api/XAU/USD', { status: 403, body: '{"error":"Invalid API Key"}' });
    await expect(fetchOnce('name: ga\nkind: gold\nconnector: goldapi\napiKeyEnv: GOLDAPI_KEY')).rejects.toThrow('answered 403');
    upstream.answer('/v1/latest', { status: 200, body: '{"status":"failure","error_code":1101,"error_message":"Invalid API Key"}' });
    await expect(fetchOnce('name: md\nkind: gold\nconnector: metalsdev\napiKeyEnv: METALS_KEY')).rejects.toThrow(/payload refused \(status: /);
  });

  it('never fetches from a private address unless allowed', async () => {
    await expect(fetchSourceQuotes(source('name: cg\nkind: crypto\nconnector: coingecko'), { dispatcher, allowPrivateTargets: false, timeoutMs: 5000, now: () => now })).rejects.toThrow(/refused http:|refused to connect/);
  });
});
