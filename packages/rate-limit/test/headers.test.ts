import { describe, expect, it } from 'vitest';
import { draftRateLimitHeaders, legacyRateLimitHeaders, type RateLimitDecision } from '../src/index.js';

const decision: RateLimitDecision = {
  allowed: true,
  limit: 60,
  remaining: 17,
  resetAt: new Date('2026-11-23T10:01:00.000Z'),
  retryAfterSeconds: 0,
  windows: [
    { name: 'minute', limit: 60, windowMs: 60_000, count: 43, remaining: 17, resetAt: new Date('2026-11-23T10:01:00.000Z') },
    { name: 'hour', limit: 1200, windowMs: 3_600_000, count: 43, remaining: 1157, resetAt: new Date('2026-11-23T11:00:00.000Z') },
  ],
  policy: [
    { name: 'minute', limit: 60, windowMs: 60_000 },
    { name: 'hour', limit: 1200, windowMs: 3_600_000 },
  ],
};

describe('header builders', () => {
  it('writes X-RateLimit-* for the most restrictive window, once per prefix, in lower case as Fastify stores names', () => {
    expect(legacyRateLimitHeaders(decision)).toEqual({
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '17',
      'x-ratelimit-reset': '2026-11-23T10:01:00.000Z',
    });
    expect(Object.keys(legacyRateLimitHeaders(decision, ['X-Rate-Limit-', 'X-RateLimit-']))).toEqual([
      'x-rate-limit-limit',
      'x-rate-limit-remaining',
      'x-rate-limit-reset',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ]);
  });

  it('writes the IETF draft RateLimit-Policy with every window and RateLimit for the deciding one', () => {
    expect(draftRateLimitHeaders(decision, Date.parse('2026-11-23T10:00:30.000Z'))).toEqual({
      'ratelimit-policy': '"minute";q=60;w=60, "hour";q=1200;w=3600',
      ratelimit: '"minute";r=17;t=30',
    });
  });
});
