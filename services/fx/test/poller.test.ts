import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateAlertListener } from '../src/domain/alerts/evaluate-alerts.js';
import { jsonRateSource } from '../src/sources/json-rate-source.js';
import { RatePoller } from '../src/workers/rate-poller.js';
import { buildTestApp, manualClock, type TestApp } from './helpers.js';

let upstream: Server;
let upstreamUrl: string;
let answer: { status: number; body: string } = { status: 500, body: 'down' };
let hits = 0;
let testApp: TestApp;
const clock = manualClock('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  upstream = createServer((_request, response) => {
    hits += 1;
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/rates`;
  testApp = await buildTestApp({ FX_STALE_SOURCE_SECONDS: '3600' }, { clock: clock.now });
});
afterAll(async () => {
  await testApp.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('rate poller against a local upstream', () => {
  it('survives failures, recovers, ingests through validation and feeds /health', async () => {
    const poller = new RatePoller({ adapter: jsonRateSource('MARKET', upstreamUrl), db: testApp.dependencies.database.db, clock: clock.now, log: testApp.app.log, intervalMs: 60_000, onRateChanged: rateAlertListener() });

    expect(await poller.pollOnce()).toBe(false);
    expect(poller.status).toEqual({ lastSuccessUtc: null, lastError: 'upstream MARKET answered 500', consecutiveFailures: 1 });

    answer = { status: 200, body: '{"rates":[{"currency":"usd","buy":120,"sell":118}]}' };
    expect(await poller.pollOnce()).toBe(false);
    expect(poller.status.lastError).toBe('The rates are invalid.');
    expect(poller.status.consecutiveFailures).toBe(2);
    const health = (await testApp.app.inject({ method: 'GET', url: '/api/v1/health' })).json();
    expect(health.checks.sources.MARKET).toEqual({ lastUpdateUtc: null, ageSeconds: null, stale: true });

    answer = { status: 200, body: '{"timestampUtc":"2026-03-10T11:59:00.000Z","rates":[{"currency":"usd","buy":118,"sell":120}]}' };
    expect(await poller.pollOnce()).toBe(true);
    expect(poller.status).toEqual({ lastSuccessUtc: '2026-03-10T12:00:00.000Z', lastError: null, consecutiveFailures: 0 });
    expect(hits).toBe(3);
    const latest = (await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest?currencies=USD' })).json();
    expect(latest.marketRates).toEqual([{ currency: 'USD', buy: 118, sell: 120, mid: 119, timestampUtc: '2026-03-10T11:59:00.000Z', isManualOverride: false, previousMid: null }]);
    const fresh = (await testApp.app.inject({ method: 'GET', url: '/api/v1/health' })).json();
    expect(fresh.checks.sources.MARKET).toEqual({ lastUpdateUtc: '2026-03-10T11:59:00.000Z', ageSeconds: 60, stale: false });
  });
});

describe('pollers wired by the app', () => {
  it('polls each configured upstream once the server listens, and not before', async () => {
    let cbsHits = 0;
    const cbs = createServer((_request, response) => {
      cbsHits += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"rates":[{"currency":"EUR","buy":129,"sell":131}]}');
    });
    await new Promise<void>((resolve) => cbs.listen(0, '127.0.0.1', resolve));
    const polled = await buildTestApp({ FX_POLL_CBS_URL: `http://127.0.0.1:${(cbs.address() as AddressInfo).port}/cbs`, FX_POLL_INTERVAL_SECONDS: '3600' });
    try {
      await polled.app.ready();
      expect(cbsHits, 'an app that is only injected into never polls').toBe(0);
      await polled.app.listen({ port: 0, host: '127.0.0.1' });
      await expect
        .poll(async () => (await polled.app.inject({ method: 'GET', url: '/api/v1/rates/latest?currencies=EUR' })).json<{ cbsRates: unknown[] }>().cbsRates, { timeout: 30_000 })
        .toEqual([expect.objectContaining({ currency: 'EUR', buy: 129, sell: 131, mid: 130 })]);
      expect(cbsHits).toBe(1);
    } finally {
      await polled.close();
      await new Promise((resolve) => cbs.close(resolve));
    }
  });
});
