import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter, MemoryCounterStore, type CounterStore } from '../src/index.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
// 2026-11-23T10:00:30Z: 30 s into a minute window, 30 s into an hour window.
const START = Date.UTC(2026, 10, 23, 10, 0, 30);

let now = START;
const clock = () => now;
const stores: MemoryCounterStore[] = [];
function memoryStore(): MemoryCounterStore {
  const store = new MemoryCounterStore({ clock });
  stores.push(store);
  return store;
}
afterEach(() => {
  stores.splice(0).forEach((store) => store.close());
  now = START;
});

describe('createRateLimiter with one window', () => {
  it('counts down remaining and denies the request after the limit with the seconds to the window end', async () => {
    const limiter = createRateLimiter({ store: memoryStore(), windows: [{ name: 'minute', limit: 3, windowMs: MINUTE }], keyPrefix: 't', clock });
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await limiter.check('1.2.3.4'));
    expect(decisions.map((d) => [d.allowed, d.remaining, d.retryAfterSeconds])).toEqual([
      [true, 2, 0],
      [true, 1, 0],
      [true, 0, 0],
      [false, 0, 30],
    ]);
    expect(decisions[3]?.resetAt.toISOString()).toBe('2026-11-23T10:01:00.000Z');
    expect(decisions[3]?.limit).toBe(3);
  });

  it('starts a new window exactly at the boundary', async () => {
    const limiter = createRateLimiter({ store: memoryStore(), windows: [{ name: 'minute', limit: 1, windowMs: MINUTE }], keyPrefix: 't', clock });
    expect((await limiter.check('k')).allowed).toBe(true);
    now = Date.UTC(2026, 10, 23, 10, 0, 59, 999);
    expect(await limiter.check('k')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now = Date.UTC(2026, 10, 23, 10, 1, 0);
    expect(await limiter.check('k')).toMatchObject({ allowed: true, remaining: 0, resetAt: new Date(Date.UTC(2026, 10, 23, 10, 2, 0)) });
  });

  it('keeps keys apart', async () => {
    const limiter = createRateLimiter({ store: memoryStore(), windows: [{ name: 'minute', limit: 1, windowMs: MINUTE }], keyPrefix: 't', clock });
    expect((await limiter.check('a')).allowed).toBe(true);
    expect((await limiter.check('b')).allowed).toBe(true);
    expect((await limiter.check('a')).allowed).toBe(false);
  });
});

describe('createRateLimiter with several windows (60/min and 1200/hour)', () => {
  const windows = [
    { name: 'minute', limit: 60, windowMs: MINUTE },
    { name: 'hour', limit: 1200, windowMs: HOUR },
  ];

  it('denies the 61st request in a minute until the minute ends, then allows again', async () => {
    const limiter = createRateLimiter({ store: memoryStore(), windows, keyPrefix: 'fx', clock });
    for (let i = 0; i < 60; i += 1) expect((await limiter.check('ip')).allowed).toBe(true);
    const denied = await limiter.check('ip');
    expect(denied).toMatchObject({ allowed: false, limit: 60, remaining: 0, retryAfterSeconds: 30 });
    expect(denied.windows).toEqual([
      { name: 'minute', limit: 60, windowMs: MINUTE, count: 61, remaining: 0, resetAt: new Date(Date.UTC(2026, 10, 23, 10, 1, 0)) },
      { name: 'hour', limit: 1200, windowMs: HOUR, count: 61, remaining: 1139, resetAt: new Date(Date.UTC(2026, 10, 23, 11, 0, 0)) },
    ]);
    now += 30_000;
    expect(await limiter.check('ip')).toMatchObject({ allowed: true, limit: 60, remaining: 59 });
  });

  it('reports the hour window once it is the one exhausted, with the wait to the end of the hour', async () => {
    const limiter = createRateLimiter({ store: memoryStore(), windows, keyPrefix: 'fx', clock });
    now = Date.UTC(2026, 10, 23, 10, 0, 0);
    for (let minute = 0; minute < 20; minute += 1) {
      for (let i = 0; i < 60; i += 1) expect((await limiter.check('ip')).allowed).toBe(true);
      now += MINUTE;
    }
    // 10:20:00, 1200 used this hour, a fresh minute.
    const denied = await limiter.check('ip');
    expect(denied).toMatchObject({ allowed: false, limit: 1200, remaining: 0, retryAfterSeconds: 40 * 60 });
    expect(denied.resetAt.toISOString()).toBe('2026-11-23T11:00:00.000Z');
  });

  it('while allowed, reports the window with the fewest requests left', async () => {
    const limiter = createRateLimiter({ store: memoryStore(), windows: [{ name: 'minute', limit: 10, windowMs: MINUTE }, { name: 'hour', limit: 5, windowMs: HOUR }], keyPrefix: 'x', clock });
    expect(await limiter.check('k')).toMatchObject({ allowed: true, limit: 5, remaining: 4 });
  });
});

describe('createRateLimiter options', () => {
  const store: CounterStore = { kind: 'memory', increment: () => Promise.resolve([]) };
  it.each([
    [[], 'at least one window'],
    [[{ name: 'm', limit: 0, windowMs: 1 }], 'limit must be a positive integer'],
    [[{ name: 'm', limit: 1.5, windowMs: 1 }], 'limit must be a positive integer'],
    [[{ name: 'm', limit: 1, windowMs: -1 }], 'windowMs must be a positive integer'],
    [[{ name: 'm', limit: 1, windowMs: 1 }, { name: 'm', limit: 2, windowMs: 2 }], 'duplicate window name'],
    [[{ name: 'a b', limit: 1, windowMs: 1 }], 'without spaces'],
  ])('refuses windows %j', (windows, message) => {
    expect(() => createRateLimiter({ store, windows, keyPrefix: 'k' })).toThrow(message);
  });
  it('requires a key prefix', () => {
    expect(() => createRateLimiter({ store, windows: [{ name: 'm', limit: 1, windowMs: 1 }], keyPrefix: '' })).toThrow('keyPrefix');
  });
});

describe('MemoryCounterStore', () => {
  it('expires keys with their window and sweeps them away', async () => {
    const store = memoryStore();
    expect(await store.increment([{ key: 'a', ttlMs: 1000 }, { key: 'b', ttlMs: 5000 }])).toEqual([1, 1]);
    expect(await store.increment([{ key: 'a', ttlMs: 1000 }])).toEqual([2]);
    now += 1000;
    store.sweep();
    expect(store.size).toBe(1);
    expect(await store.increment([{ key: 'a', ttlMs: 1000 }])).toEqual([1]);
  });
});

describe('calendar-month windows (monthly quotas)', () => {
  const quota = [
    { name: 'minute', limit: 60, windowMs: MINUTE },
    { name: 'month', limit: 3, windowMs: 0, calendar: 'utc-month' as const },
  ];

  it('allows the quota, refuses the next request until the first instant of the next UTC month, then starts again', async () => {
    now = Date.UTC(2026, 10, 30, 23, 59, 0); // 2026-11-30T23:59:00Z
    const limiter = createRateLimiter({ store: memoryStore(), windows: quota, keyPrefix: 'key', clock });
    for (let i = 0; i < 3; i += 1) {
      expect((await limiter.check('svc_pub_a')).allowed).toBe(true);
      now += MINUTE / 4;
    }
    const exhausted = await limiter.check('svc_pub_a');
    expect(exhausted).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(exhausted.resetAt.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(exhausted.retryAfterSeconds).toBe(15);
    expect(exhausted.windows[1]).toMatchObject({ name: 'month', windowMs: 30 * 86_400_000 });
    now = Date.UTC(2026, 11, 1, 0, 0, 0);
    expect(await limiter.check('svc_pub_a')).toMatchObject({ allowed: true, windows: [expect.anything(), expect.objectContaining({ count: 1, remaining: 2 })] });
  });

  it('rolls over at the year boundary and keeps keys apart', async () => {
    now = Date.UTC(2026, 11, 31, 23, 0, 0);
    const limiter = createRateLimiter({ store: memoryStore(), windows: [{ name: 'month', limit: 1, windowMs: 0, calendar: 'utc-month' }], keyPrefix: 'key', clock });
    expect((await limiter.check('a')).allowed).toBe(true);
    expect((await limiter.check('b')).allowed).toBe(true);
    const refused = await limiter.check('a');
    expect(refused.resetAt.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    now = Date.UTC(2027, 0, 1, 0, 0, 0);
    expect((await limiter.check('a')).allowed).toBe(true);
  });
});

describe('peek', () => {
  it('reads the counts the decisions were made on without counting, and 0 in a new window', async () => {
    const limiter = createRateLimiter({ store: memoryStore(), windows: [{ name: 'minute', limit: 2, windowMs: MINUTE }, { name: 'month', limit: 300, windowMs: 0, calendar: 'utc-month' }], keyPrefix: 't', clock });
    expect((await limiter.peek('k')).map((w) => w.count)).toEqual([0, 0]);
    for (let i = 0; i < 3; i += 1) await limiter.check('k');
    const last = await limiter.check('k');
    const peeked = await limiter.peek('k');
    expect(peeked.map((w) => [w.name, w.count, w.remaining])).toEqual(last.windows.map((w) => [w.name, w.count, w.remaining]));
    expect(peeked[1]?.resetAt.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect((await limiter.peek('k')).map((w) => w.count)).toEqual([4, 4]);
    now += MINUTE;
    expect((await limiter.peek('k')).map((w) => w.count)).toEqual([0, 4]);
  });
});
