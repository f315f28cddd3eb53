import { problemJsonPlugin, RateLimitedError } from '@svc/problem-json';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { describeNeeding } from '@svc/db/testing';
import {
  createRateLimiter,
  legacyRateLimitHeaders,
  MemoryCounterStore,
  rateLimitPlugin,
  RedisCounterStore,
  type CounterStore,
  type RateLimiter,
  type RateLimitPluginOptions,
} from '../src/index.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** An identity-like app: 120/min per IP, problem+json 429; /health not limited. */
async function buildApp(
  limiter: RateLimiter,
  options: { keyFrom?: 'ip' | 'header'; onStoreError?: 'allow' | 'deny'; onDecision?: RateLimitPluginOptions['onDecision']; onExceeded?: RateLimitPluginOptions['onExceeded'] } = {},
) {
  const app = Fastify();
  apps.push(app);
  await app.register(problemJsonPlugin);
  await app.register(rateLimitPlugin, {
    resolve: (request) => (request.url === '/health' ? null : { limiter, name: 'ip', key: options.keyFrom === 'header' ? String(request.headers['x-client']) : request.ip }),
    headers: (decision) => legacyRateLimitHeaders(decision),
    onExceeded:
      options.onExceeded ??
      ((_request, _reply, decision) => {
        throw new RateLimitedError(decision.retryAfterSeconds, `More than ${decision.limit} requests per minute.`);
      }),
    ...(options.onStoreError ? { onStoreError: options.onStoreError } : {}),
    ...(options.onDecision ? { onDecision: options.onDecision } : {}),
  });
  app.get('/things', async (request) => ({ remaining: request.rateLimit?.remaining }));
  app.get('/health', async (request) => ({ limited: request.rateLimit !== null }));
  return app;
}

describe('rateLimitPlugin', () => {
  it('allows 120 requests a minute per IP and answers the 121st with a problem+json 429 and Retry-After', async () => {
    const store = new MemoryCounterStore();
    const app = await buildApp(createRateLimiter({ store, keyPrefix: 'identity', windows: [{ name: 'minute', limit: 120, windowMs: 60_000 }] }));
    for (let i = 0; i < 120; i += 1) {
      const response = await app.inject({ url: '/things', remoteAddress: '203.0.113.9' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-remaining']).toBe(String(119 - i));
    }
    const limited = await app.inject({ url: '/things', remoteAddress: '203.0.113.9' });
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-limit']).toBe('120');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter });
    // Another address has its own counter.
    expect((await app.inject({ url: '/things', remoteAddress: '203.0.113.10' })).statusCode).toBe(200);
    store.close();
  });

  it('lets onExceeded answer itself, at once or later, or fail into the error handler, over a store that answers later', async () => {
    const memory = new MemoryCounterStore();
    // Without incrementNow: every decision takes a promise, as on Redis.
    const store: CounterStore = { kind: 'redis', increment: (counters) => memory.increment(counters) };
    const windows = [{ name: 'minute', limit: 1, windowMs: 60_000 }];
    const sending = await buildApp(createRateLimiter({ store, keyPrefix: 's', windows }), { onExceeded: (_request, reply) => reply.code(429).send({ error: 'slow down' }) });
    const later = await buildApp(createRateLimiter({ store, keyPrefix: 'l', windows }), {
      onExceeded: async (_request, reply) => {
        await new Promise((resolve) => setImmediate(resolve));
        return reply.code(429).send({ error: 'later' });
      },
    });
    const failing = await buildApp(createRateLimiter({ store, keyPrefix: 'f', windows }), {
      onExceeded: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        throw new RateLimitedError(7, 'Refused after a look-up.');
      },
    });
    for (const [app, body] of [
      [sending, { error: 'slow down' }],
      [later, { error: 'later' }],
    ] as const) {
      expect((await app.inject({ url: '/things' })).statusCode).toBe(200);
      const refused = await app.inject({ url: '/things' });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.json()).toEqual(body);
    }
    expect((await failing.inject({ url: '/things' })).statusCode).toBe(200);
    const failed = await failing.inject({ url: '/things' });
    expect(failed.statusCode).toBe(429);
    expect(failed.json()).toMatchObject({ code: 'RATE_LIMITED', detail: 'Refused after a look-up.' });
    memory.close();
  });

  it('tells onDecision of each decision by limit name, and nothing for requests left out', async () => {
    const store = new MemoryCounterStore();
    const decisions: string[] = [];
    const app = await buildApp(createRateLimiter({ store, keyPrefix: 'd', windows: [{ name: 'minute', limit: 1, windowMs: 60_000 }] }), {
      onDecision: (limit, outcome) => decisions.push(`${limit}:${outcome}`),
    });
    expect((await app.inject({ url: '/things' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/things' })).statusCode).toBe(429);
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    expect(decisions).toEqual(['ip:allowed', 'ip:limited']);
    store.close();
  });

  it('does not count or decorate requests the resolver leaves out', async () => {
    const store = new MemoryCounterStore();
    const app = await buildApp(createRateLimiter({ store, keyPrefix: 'h', windows: [{ name: 'minute', limit: 1, windowMs: 60_000 }] }));
    for (let i = 0; i < 3; i += 1) {
      const response = await app.inject({ url: '/health' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ limited: false });
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect((await app.inject({ url: '/things' })).statusCode).toBe(200);
    store.close();
  });

  it('lets requests through when the store fails by default, and answers 503 when told to deny', async () => {
    const failing: CounterStore = { kind: 'redis', increment: () => Promise.reject(new Error('connection lost')) };
    const limiter = createRateLimiter({ store: failing, keyPrefix: 'f', windows: [{ name: 'minute', limit: 1, windowMs: 60_000 }] });
    const decisions: string[] = [];
    const lenient = await buildApp(limiter, { onDecision: (limit, outcome) => decisions.push(`${limit}:${outcome}`) });
    expect((await lenient.inject({ url: '/things' })).statusCode).toBe(200);
    expect(decisions).toEqual(['ip:store_error']);
    const strict = await buildApp(limiter, { onStoreError: 'deny' });
    const refused = await strict.inject({ url: '/things' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});

describeNeeding('REDIS_URL')('two instances sharing one Redis', () => {
  it('together allow exactly the limit', async () => {
    const redis = new Redis(process.env.REDIS_URL!);
    const prefix = `test:${randomBytes(6).toString('hex')}:`;
    try {
      const instances = await Promise.all(
        [0, 1].map(async () => {
          const app = await buildApp(createRateLimiter({ store: new RedisCounterStore(redis, { prefix }), keyPrefix: 'shared', windows: [{ name: 'minute', limit: 10, windowMs: 60_000 }] }), { keyFrom: 'header' });
          return app.listen({ port: 0, host: '127.0.0.1' });
        }),
      );
      const statuses: number[] = [];
      for (let i = 0; i < 11; i += 1) {
        const response = await fetch(`${instances[i % 2]}/things`, { headers: { 'x-client': 'partner-a' } });
        statuses.push(response.status);
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
      expect(statuses[10]).toBe(429);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });
});
