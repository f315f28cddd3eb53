import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, manualClock, type TestApp } from './helpers.js';
import { itNeeding } from '@svc/db/testing';

const opened: TestApp[] = [];
async function open(...args: Parameters<typeof buildTestApp>) {
  const testApp = await buildTestApp(...args);
  opened.push(testApp);
  return testApp;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((testApp) => testApp.close()));
});

const pricing = (testApp: TestApp, headers: Record<string, string> = {}) => testApp.app.inject({ method: 'GET', url: '/api/v1/pricing', headers });

describe('anonymous per-IP limits', () => {
  it('sends the spec\'s spelling and the IETF pair for the most restrictive window, and not the variant spelling', async () => {
    const clock = manualClock('2026-03-10T12:00:30.000Z');
    const testApp = await open({}, { clock: clock.now });
    const response = await pricing(testApp);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-rate-limit-limit']).toBe('60');
    expect(response.headers['x-rate-limit-remaining']).toBe('59');
    expect(response.headers['x-rate-limit-reset']).toBe('2026-03-10T12:01:00.000Z');
    expect(Object.keys(response.headers).filter((name) => name.startsWith('x-ratelimit-'))).toEqual([]);
    expect(response.headers['ratelimit-policy']).toBe('"minute";q=60;w=60, "hour";q=1200;w=3600');
    expect(response.headers.ratelimit).toBe('"minute";r=59;t=30');
    const health = await testApp.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(health.headers['x-rate-limit-limit']).toBeUndefined();
  });

  it('answers the 61st request in a minute with 429 {error, retryAfter} and lets the next minute through', async () => {
    const clock = manualClock('2026-03-10T12:00:30.000Z');
    const testApp = await open({}, { clock: clock.now });
    for (let index = 0; index < 60; index += 1) expect((await pricing(testApp)).statusCode).toBe(200);
    const limited = await pricing(testApp);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('30');
    expect(limited.headers['x-rate-limit-remaining']).toBe('0');
    expect(limited.json()).toEqual({ error: 'Rate limit exceeded. Try again in 30 seconds.', retryAfter: 30 });
    clock.advance(30_000);
    expect((await pricing(testApp)).statusCode).toBe(200);
  });

  it('enforces the hourly window across minutes', async () => {
    const clock = manualClock('2026-03-10T12:00:00.000Z');
    const testApp = await open({ RATE_LIMIT_ANON_PER_MINUTE: '3', RATE_LIMIT_ANON_PER_HOUR: '5' }, { clock: clock.now });
    for (let index = 0; index < 3; index += 1) expect((await pricing(testApp)).statusCode).toBe(200);
    clock.advance(60_000);
    expect((await pricing(testApp)).statusCode).toBe(200);
    const last = await pricing(testApp);
    expect(last.statusCode).toBe(200);
    expect(last.headers.ratelimit).toBe('"hour";r=0;t=3540');
    const limited = await pricing(testApp);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'Rate limit exceeded. Try again in 3540 seconds.', retryAfter: 3540 });
  });

  it('counts X-Forwarded-For clients separately only behind a trusted proxy', async () => {
    const clock = manualClock('2026-03-10T12:00:00.000Z');
    const trusting = await open({ RATE_LIMIT_ANON_PER_MINUTE: '1', TRUSTED_PROXIES: '127.0.0.1' }, { clock: clock.now });
    expect((await pricing(trusting, { 'X-Forwarded-For': '203.0.113.7' })).statusCode).toBe(200);
    expect((await pricing(trusting, { 'X-Forwarded-For': '203.0.113.8' })).statusCode).toBe(200);
    expect((await pricing(trusting, { 'X-Forwarded-For': '203.0.113.7' })).statusCode).toBe(429);
    const untrusting = await open({ RATE_LIMIT_ANON_PER_MINUTE: '1' }, { clock: clock.now });
    expect((await pricing(untrusting, { 'X-Forwarded-For': '203.0.113.7' })).statusCode).toBe(200);
    expect((await pricing(untrusting, { 'X-Forwarded-For': '203.0.113.8' })).statusCode).toBe(429);
  });

  itNeeding('REDIS_URL')('shares the per-IP count across two instances through Redis', async () => {
    const clock = manualClock('2026-03-10T12:00:10.000Z');
    const rateLimitKeyPrefix = `fx-test:${randomBytes(6).toString('hex')}:`;
    const first = await open({}, { clock: clock.now, rateLimitKeyPrefix });
    const second = await open({}, { clock: clock.now, rateLimitKeyPrefix });
    for (let index = 0; index < 60; index += 1) expect((await pricing(index % 2 === 0 ? first : second)).statusCode).toBe(200);
    expect((await pricing(first)).statusCode).toBe(429);
    const limited = await pricing(second);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'Rate limit exceeded. Try again in 50 seconds.', retryAfter: 50 });
  });

  itNeeding('REDIS_URL')('keeps limiting per instance when Redis is lost, and says so in health', async () => {
    const clock = manualClock('2026-03-10T12:00:10.000Z');
    const testApp = await open({ RATE_LIMIT_ANON_PER_MINUTE: '3' }, { clock: clock.now });
    const healthBefore = await testApp.app.inject({ url: '/api/v1/health' });
    expect(healthBefore.json().checks.rateLimits).toEqual({ store: 'redis' });
    testApp.dependencies.redis?.disconnect();
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await pricing(testApp)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const health = await testApp.app.inject({ url: '/api/v1/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'degraded', checks: { redis: { status: 'down' }, rateLimits: { store: 'memory-fallback' } } });
  });
});

describe('GET /api/v1/pricing', () => {
  it('serves the configured limits and the four plans in order', async () => {
    const testApp = await open();
    expect((await pricing(testApp)).json()).toEqual({
      anonymous: { perMinute: 60, perHour: 1200 },
      plans: [
        { name: 'Free', monthlyQuota: 300, perMinute: 60, webhookAllowance: 1, maxStreams: 2 },
        { name: 'Starter', monthlyQuota: 10000, perMinute: 60, webhookAllowance: 5, maxStreams: 5 },
        { name: 'Professional', monthlyQuota: 500000, perMinute: 60, webhookAllowance: 25, maxStreams: 25 },
        { name: 'Enterprise', monthlyQuota: null, perMinute: 60, webhookAllowance: 100, maxStreams: 100 },
      ],
    });
  });

  it('publishes the same numbers the limiter enforces', async () => {
    const testApp = await open({ RATE_LIMIT_ANON_PER_MINUTE: '7', RATE_LIMIT_ANON_PER_HOUR: '70' });
    const response = await pricing(testApp);
    expect(response.json().anonymous).toEqual({ perMinute: 7, perHour: 70 });
    expect(response.headers['ratelimit-policy']).toBe('"minute";q=7;w=60, "hour";q=70;w=3600');
  });
});
