import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateAlertListener } from '../src/domain/alerts/evaluate-alerts.js';
import { jsonRateSource, RatePoller } from '../src/domain/pollers/rate-poller.js';
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
