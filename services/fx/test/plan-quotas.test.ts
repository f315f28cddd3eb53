import { createRateLimiter, MemoryCounterStore } from '@svc/rate-limit';
import { describe, expect, it } from 'vitest';
import { loadFxConfig } from '../src/config.js';
import { limitsConfiguration, planWindows } from '../src/domain/limits/plans.js';
import { tooManyRequestsBody } from '../src/plugins/rate-limits.js';

// The plans are configuration the limiter builds its windows from: tested here without keys or a server.
const plans = limitsConfiguration(loadFxConfig({})).plans;
const plan = (name: string) => plans.find((candidate) => candidate.name === name)!;

describe('plan quotas', () => {
  it('turn each plan into a per-minute window plus a calendar-month quota (none for Enterprise)', () => {
    expect(planWindows(plan('Free'))).toEqual([
      { name: 'minute', limit: 60, windowMs: 60_000 },
      { name: 'month', limit: 300, windowMs: 0, calendar: 'utc-month' },
    ]);
    expect(planWindows(plan('Professional'))[1]).toMatchObject({ limit: 500_000 });
    expect(planWindows(plan('Enterprise'))).toEqual([{ name: 'minute', limit: 60, windowMs: 60_000 }]);
  });

  it('refuse the 301st Free call of the month with the quota message until the month rolls over', async () => {
    let now = Date.UTC(2026, 10, 30, 22, 0, 0);
    const store = new MemoryCounterStore({ clock: () => now });
    const limiter = createRateLimiter({ store, windows: planWindows(plan('Free')), keyPrefix: 'key', clock: () => now });
    for (let call = 0; call < 300; call += 1) {
      expect((await limiter.check('svc_pub_demo')).allowed).toBe(true);
      now += 60_000 / 50; // 50 a minute: under the per-minute limit
    }
    const refused = await limiter.check('svc_pub_demo');
    expect(refused.allowed).toBe(false);
    expect(tooManyRequestsBody(refused)).toEqual({
      error: `Monthly quota exhausted. It resets at 2026-12-01T00:00:00.000Z, in ${refused.retryAfterSeconds} seconds.`,
      retryAfter: refused.retryAfterSeconds,
    });
    expect(refused.retryAfterSeconds).toBe(Math.ceil((Date.UTC(2026, 11, 1) - now) / 1000));
    now = Date.UTC(2026, 11, 1, 0, 0, 0);
    expect((await limiter.check('svc_pub_demo')).allowed).toBe(true);
    store.close();
  });

  it('keep the per-minute message for the minute window', async () => {
    const now = Date.UTC(2026, 10, 10, 10, 0, 30);
    const store = new MemoryCounterStore({ clock: () => now });
    const limiter = createRateLimiter({ store, windows: planWindows(plan('Starter')), keyPrefix: 'key', clock: () => now });
    for (let call = 0; call < 60; call += 1) await limiter.check('k');
    expect(tooManyRequestsBody(await limiter.check('k'))).toEqual({ error: 'Rate limit exceeded. Try again in 30 seconds.', retryAfter: 30 });
    store.close();
  });
});
