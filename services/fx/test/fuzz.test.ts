import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './alert-helpers.js';
import { ADMIN_TOKEN, buildTestApp, manualClock, type TestApp } from './helpers.js';
import { fuzzEveryRoute, type FuzzOperation, type RouteCredentials } from './route-fuzzer.js';

// FUZZ_SEED replays a reported failure; FUZZ_ROUTE narrows the run to one route; FUZZ_RUNS raises the effort.
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

let test: TestApp;
// Webhook targets may be loopback: the sandbox resolves no public name, and nothing is delivered (no worker).
// The clock moves a second per request, so a client's 60-a-minute limit never answers before the validators do.
const clock = manualClock('2026-03-01T12:00:00Z');

beforeAll(async () => {
  test = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '1000000', RATE_LIMIT_ANON_PER_HOUR: '1000000', ALERT_WORKER_IN_PROCESS: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, { clock: clock.now });
  const admin = { 'X-Admin-Token': ADMIN_TOKEN };
  const seeded = await test.app.inject({ method: 'POST', url: '/api/v1/admin/rates', headers: admin, payload: { source: 'MARKET', rates: [{ currency: 'USD', buy: 14_000, sell: 14_100 }, { currency: 'EUR', buy: 15_000, sell: 15_200 }] } });
  expect(seeded.statusCode, seeded.body).toBe(201);
});
afterAll(async () => {
  await test?.close();
});

/** Admin routes get the token and a client of their own to rotate or deactivate; client routes a fresh client with one webhook. */
async function credentialsFor(operation: FuzzOperation): Promise<RouteCredentials> {
  if (operation.security.includes('adminToken')) {
    const victim = await createClient(test, 'Starter');
    return { headers: { 'X-Admin-Token': ADMIN_TOKEN }, pathValues: { id: [victim.id], currency: ['USD', 'EUR', 'usd'] } };
  }
  if (operation.security.includes('apiKey')) {
    const client = await createClient(test, 'Enterprise');
    const created = await test.app.inject({
      method: 'POST',
      url: '/api/v1/client/webhooks',
      headers: client.headers,
      payload: { webhookUrl: 'http://127.0.0.1:9/fx', currency: 'USD', source: 'MARKET', alertType: 2, thresholdValue: 5 },
    });
    expect(created.statusCode, created.body).toBe(201);
    return { headers: client.headers, pathValues: { id: [created.json<{ id: string }>().id] } };
  }
  return { headers: {} };
}

describe('fuzzing every fx route', () => {
  it(`answers no 5xx to ${RUNS} generated requests per route (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const started = Date.now();
    const { operations, failures, statuses, milliseconds } = await fuzzEveryRoute(test.app, {
      credentialsFor,
      hints: { currency: ['USD', 'EUR', 'GBP', 'usd,eur'], from: ['USD', 'SYP', 'eur'], to: ['SYP', 'EUR'], amount: ['250', '0.5', '1000000'], symbol: ['BTC', 'ETH'], lang: ['en', 'ar', 'de'], webhookUrl: ['http://127.0.0.1:9/fx'] },
      runsPerRoute: RUNS,
      seed: SEED,
      ...(process.env.FUZZ_ROUTE ? { only: process.env.FUZZ_ROUTE } : {}),
      beforeRequest: () => clock.advance(1000),
    });
    for (const [operation, counts] of Object.entries(statuses)) console.log(`${operation} ${milliseconds[operation]} ms`, JSON.stringify(counts));
    console.log(`fuzzed ${operations.length} fx operations × ${RUNS} runs in ${Date.now() - started} ms`);
    expect(operations.length).toBeGreaterThan(process.env.FUZZ_ROUTE ? 0 : 20);
    expect(failures.map((failure) => `${failure.operation} (FUZZ_SEED=${SEED}, route seed ${failure.seed}, path ${failure.counterexamplePath})\n${failure.detail}`)).toEqual([]);
  });
});
