import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRateLimiter, FallbackCounterStore, MemoryCounterStore, RedisCounterStore } from '../src/index.js';
import { describeNeeding } from '@svc/db/testing';

describeNeeding('REDIS_URL')('RedisCounterStore on the real Redis', () => {
  let redis: Redis;
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('counts per key and sets each key to expire with its window', async () => {
    const store = new RedisCounterStore(redis, { prefix });
    expect(await store.increment([{ key: 'a', ttlMs: 60_000 }, { key: 'b', ttlMs: 3_600_000 }])).toEqual([1, 1]);
    expect(await store.increment([{ key: 'a', ttlMs: 60_000 }, { key: 'b', ttlMs: 3_600_000 }])).toEqual([2, 2]);
    const [ttlA, ttlB] = await Promise.all([redis.pttl(`${prefix}a`), redis.pttl(`${prefix}b`)]);
    expect(ttlA).toBeGreaterThan(55_000);
    expect(ttlA).toBeLessThanOrEqual(60_000);
    expect(ttlB).toBeGreaterThan(3_500_000);
    expect(ttlB).toBeLessThanOrEqual(3_600_000);
  });

  it('peeks at counts without counting, 0 for a missing key', async () => {
    const store = new RedisCounterStore(redis, { prefix });
    await store.increment([{ key: 'seen', ttlMs: 60_000 }]);
    await store.increment([{ key: 'seen', ttlMs: 60_000 }]);
    expect(await store.peek(['seen', 'never'])).toEqual([2, 0]);
    expect(await store.peek(['seen'])).toEqual([2]);
  });

  it('restores an expiry on a key that lost it', async () => {
    const store = new RedisCounterStore(redis, { prefix });
    await redis.set(`${prefix}orphan`, '5');
    expect(await store.increment([{ key: 'orphan', ttlMs: 10_000 }])).toEqual([6]);
    expect(await redis.pttl(`${prefix}orphan`)).toBeGreaterThan(0);
  });

  it('checks every window of a policy in one round trip (a single EVALSHA)', async () => {
    const store = new RedisCounterStore(redis, { prefix });
    const limiter = createRateLimiter({ store, keyPrefix: 'one-trip', windows: [{ name: 'minute', limit: 60, windowMs: 60_000 }, { name: 'hour', limit: 1200, windowMs: 3_600_000 }] });
    await limiter.check('warm-up'); // loads the script (EVALSHA → NOSCRIPT → EVAL) once
    const monitor = await redis.monitor();
    const commands: string[] = [];
    // MONITOR also lists the commands a script runs inside Redis (source "lua"); count only what the client sent.
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.includes('one-trip:'))) commands.push(String(args[0]).toLowerCase());
    });
    await limiter.check('1.2.3.4');
    // MONITOR reports in order: once a later command of this test shows, the check's commands have.
    const marker = `${prefix}one-trip-end`;
    let markerSeen = false;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.includes(marker)) markerSeen = true;
    });
    await redis.get(marker);
    await vi.waitFor(() => expect(markerSeen).toBe(true));
    monitor.disconnect();
    expect(commands).toEqual(['evalsha']);
  });

  it('counts the checks of one event-loop turn in one EVALSHA, each with the count it would have got alone', async () => {
    const store = new RedisCounterStore(redis, { prefix });
    await store.increment([{ key: 'batch-warm-up', ttlMs: 1000 }]); // loads the script once
    await redis.set(`${prefix}batch-b`, '10');
    const monitor = await redis.monitor();
    const commands: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.includes('batch-'))) commands.push(args);
    });
    const counts = await Promise.all([
      store.increment([{ key: 'batch-a', ttlMs: 60_000 }, { key: 'batch-b', ttlMs: 3_600_000 }]),
      store.increment([{ key: 'batch-a', ttlMs: 60_000 }]),
      store.increment([{ key: 'batch-c', ttlMs: 60_000 }]),
      store.increment([{ key: 'batch-a', ttlMs: 60_000 }, { key: 'batch-b', ttlMs: 3_600_000 }]),
    ]);
    expect(counts).toEqual([[1, 11], [2], [1], [3, 12]]);
    await store.increment([{ key: 'batch-end', ttlMs: 1000 }]); // MONITOR shows it after the batch
    await vi.waitFor(() => expect(commands.some((args) => args.includes(`${prefix}batch-end`))).toBe(true));
    monitor.disconnect();
    expect(commands.map((args) => String(args[0]).toLowerCase())).toEqual(['evalsha', 'evalsha']);
    expect(await redis.get(`${prefix}batch-a`)).toBe('3');
    // A key that existed before the batch keeps its own expiry rule: it had none, so it gets one.
    expect(await redis.pttl(`${prefix}batch-b`)).toBeGreaterThan(3_500_000);
    expect(await redis.pttl(`${prefix}batch-a`)).toBeLessThanOrEqual(60_000);
  });

  it('fails every check of a batch when Redis refuses it', async () => {
    // A Redis that never answers: nothing listens on port 1, and the client does not retry.
    const broken = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    broken.on('error', () => undefined);
    const store = new RedisCounterStore(broken, { prefix });
    const results = await Promise.allSettled([store.increment([{ key: 'x', ttlMs: 1000 }]), store.increment([{ key: 'y', ttlMs: 1000 }])]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    broken.disconnect();
  });

  it('allows exactly the limit under 200 concurrent checks', async () => {
    const limiter = createRateLimiter({ store: new RedisCounterStore(redis, { prefix }), keyPrefix: 'burst', windows: [{ name: 'minute', limit: 50, windowMs: 60_000 }] });
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.check('same-client')));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
  });
});

describe('FallbackCounterStore', () => {
  it('answers from the fallback while the primary fails, and says so', async () => {
    let primaryUp = false;
    const primary = { kind: 'redis' as const, increment: () => (primaryUp ? Promise.resolve([42]) : Promise.reject(new Error('redis down'))) };
    const fallback = new MemoryCounterStore();
    const store = new FallbackCounterStore(primary, fallback);
    expect(store.kind).toBe('redis');
    expect(await store.increment([{ key: 'k', ttlMs: 1000 }])).toEqual([1]);
    expect(store.degraded).toBe(true);
    primaryUp = true;
    expect(await store.increment([{ key: 'k', ttlMs: 1000 }])).toEqual([42]);
    expect(store.degraded).toBe(false);
    fallback.close();
  });
});
