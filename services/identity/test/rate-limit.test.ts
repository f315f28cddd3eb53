import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadIdentityConfig } from '../src/config.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';
import { itNeeding } from '@svc/db/testing';

describe('rate limit: 120 requests per IP per fixed minute', () => {
  const opened: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((test) => test.close()));
  });

  async function start(env: Record<string, string> = {}) {
    // Start of a minute, so all 121 requests fall in one fixed window.
    const clock = manualClock(new Date('2026-11-23T10:00:00.000Z'));
    const test = await buildTestApp(env, { clock: clock.now });
    opened.push(test);
    return { test, clock };
  }

  const hit = (test: TestApp, options: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
    test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, ...options });

  it('answers the 121st request with 429 RATE_LIMITED and Retry-After, then lets the next window through', async () => {
    const { test, clock } = await start();
    for (let index = 1; index <= 120; index++) {
      const response = await hit(test);
      expect(response.statusCode).toBe(401);
      if (index === 1) expect(response.headers['x-ratelimit-limit']).toBe('120');
    }
    clock.advance(15_000);
    const limited = await hit(test);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: 45 });
    expect(limited.headers['retry-after']).toBe('45');
    // Another address has its own budget.
    expect((await hit(test, { remoteAddress: '198.51.100.20' })).statusCode).toBe(401);
    clock.advance(45_000);
    expect((await hit(test)).statusCode).toBe(401);
  });

  it('counts the X-Forwarded-For client only when the peer is a trusted proxy', async () => {
    const { test } = await start({ RATE_LIMIT_PER_MINUTE: '2' });
    // From the trusted (loopback) proxy: each forwarded client has its own budget.
    for (const client of ['198.51.100.1', '198.51.100.2']) {
      for (let index = 0; index < 2; index++) expect((await hit(test, { headers: { 'x-forwarded-for': client } })).statusCode).toBe(401);
    }
    expect((await hit(test, { headers: { 'x-forwarded-for': '198.51.100.1' } })).statusCode).toBe(429);
    // From an untrusted peer the header is ignored: rotating it does not buy more requests.
    for (let index = 0; index < 2; index++) {
      expect((await hit(test, { remoteAddress: '203.0.113.5', headers: { 'x-forwarded-for': `10.0.0.${index}` } })).statusCode).toBe(401);
    }
    expect((await hit(test, { remoteAddress: '203.0.113.5', headers: { 'x-forwarded-for': '10.0.0.99' } })).statusCode).toBe(429);
  });

  it('counts a percent-encoded path like the plain one', async () => {
    const { test } = await start({ RATE_LIMIT_PER_MINUTE: '1' });
    expect((await test.app.inject({ method: 'GET', url: '/api/%70artner/v1/oauth/clients' })).statusCode).toBe(401);
    expect((await test.app.inject({ method: 'GET', url: '/api/%70artner/v1/oauth/clients' })).statusCode).toBe(429);
  });

  it('does not count health checks or docs', async () => {
    const { test } = await start({ RATE_LIMIT_PER_MINUTE: '1' });
    for (let index = 0; index < 3; index++) expect((await test.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await hit(test)).statusCode).toBe(401);
    expect((await hit(test)).statusCode).toBe(429);
  });

  itNeeding('REDIS_URL')('shares one count across instances through Redis', async () => {
    const { test } = await start({ RATE_LIMIT_PER_MINUTE: '3' });
    const clock = manualClock(new Date('2026-11-23T10:00:00.000Z'));
    const prefix = `test:${randomUUID()}:`;
    const second = await buildApp({ ...test.dependencies, config: loadIdentityConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '3' }), clock: clock.now, rateLimitKeyPrefix: prefix });
    const first = await buildApp({ ...test.dependencies, config: loadIdentityConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '3' }), clock: clock.now, rateLimitKeyPrefix: prefix });
    try {
      const codes = [];
      for (const app of [first, second, first, second]) codes.push((await app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, remoteAddress: '198.51.100.77' })).statusCode);
      expect(codes).toEqual([401, 401, 401, 429]);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
