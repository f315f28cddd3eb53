import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, manualClock, postRates, type TestApp } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('fx health', () => {
  let testApp: TestApp;
  const clock = manualClock('2026-03-10T12:00:00.000Z');
  beforeEach(async () => {
    clock.set('2026-03-10T12:00:00.000Z');
    testApp = await buildTestApp({ FX_STALE_SOURCE_SECONDS: '3600' }, { clock: clock.now });
  });
  afterEach(async () => {
    await testApp.close();
  });

  const baseChecks = {
    database: { status: 'ok', driver: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    redis: process.env.REDIS_URL ? { status: 'ok', store: 'redis' } : { status: 'not_configured', store: 'memory' },
  };

  it('is degraded (200) while no source has data, and says it is not demo data', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-correlation-id']).toMatch(UUID);
    expect(response.json()).toEqual({
      status: 'degraded',
      service: 'fx',
      version: '0.1.0',
      uptimeSeconds: expect.any(Number),
      demo: false,
      checks: {
        ...baseChecks,
        sources: { CBS: { lastUpdateUtc: null, ageSeconds: null, stale: true }, MARKET: { lastUpdateUtc: null, ageSeconds: null, stale: true } },
        upstreams: [],
        stalePrices: [],
        mail: { transport: 'file', queued: 0, retrying: 0, oldestQueuedAt: null },
        rateLimits: { store: process.env.REDIS_URL ? 'redis' : 'memory' },
      },
    });
  });

  it('is ok with fresh sources and flags a source stale past FX_STALE_SOURCE_SECONDS', async () => {
    expect((await postRates(testApp, { source: 'CBS', timestampUtc: '2026-03-10T11:00:00.000Z', rates: [{ currency: 'USD', buy: 110, sell: 111 }] })).statusCode).toBe(201);
    expect((await postRates(testApp, { source: 'MARKET', timestampUtc: '2026-03-10T11:30:00.000Z', rates: [{ currency: 'USD', buy: 118, sell: 120 }] })).statusCode).toBe(201);
    const fresh = await testApp.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(fresh.json()).toMatchObject({
      status: 'ok',
      checks: { sources: { CBS: { lastUpdateUtc: '2026-03-10T11:00:00.000Z', ageSeconds: 3600, stale: false }, MARKET: { ageSeconds: 1800, stale: false } } },
    });
    clock.advance(1000);
    const stale = await testApp.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(stale.statusCode).toBe(200);
    expect(stale.json()).toMatchObject({ status: 'degraded', checks: { sources: { CBS: { ageSeconds: 3601, stale: true }, MARKET: { stale: false } } } });
  });

  it('answers 503 "down" when the database is gone', async () => {
    await testApp.dependencies.database.close();
    const response = await testApp.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'down', checks: { database: { status: 'down' } } });
  });

  it('documents the public and admin routes in OpenAPI', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/docs/json' });
    const document = response.json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/health',
        '/api/v1/rates/latest',
        '/api/v1/rates/usd-based',
        '/api/v1/pricing',
        '/api/v1/admin/rates',
        '/api/v1/admin/overrides',
        '/api/v1/admin/clients',
        '/api/v1/admin/clients/{id}/rotate-secret',
        '/api/v1/admin/clients/{id}/deactivate',
        '/api/v1/admin/clients/{id}/plan',
        '/api/v1/client/me',
        '/api/v1/client/webhooks',
        '/api/v1/client/webhooks/{id}',
        '/api/v1/client/webhooks/{id}/rotate-secret',
      ]),
    );
    const webhooks = (document.paths['/api/v1/client/webhooks'] as Record<string, { security?: unknown[]; responses: Record<string, unknown> }>).post!;
    expect(webhooks.security).toEqual([{ apiKey: [], apiSecret: [] }]);
    expect(Object.keys(webhooks.responses).sort()).toEqual(['201', '400', '401', '403', '429']);
  });
});
