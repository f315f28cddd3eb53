import {
  createRateLimiter,
  draftRateLimitHeaders,
  FallbackCounterStore,
  legacyRateLimitHeaders,
  MemoryCounterStore,
  rateLimitPlugin,
  RedisCounterStore,
  type CounterStore,
  type RateLimitDecision,
} from '@svc/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { anonymousWindows, type LimitsConfiguration } from '../domain/limits/plans.js';

export interface FxRateLimitOptions {
  limits: LimitsConfiguration;
  redis: Redis | null;
  clock: () => Date;
  /** Redis key prefix; tests pass a random one. */
  keyPrefix?: string;
}

/**
 * Anonymous requests are limited per client IP (request.ip honours TRUSTED_PROXIES via
 * Fastify trustProxy). The resolver is where the clients issue adds keyed policies
 * (per key + monthly quota) as further limiters built from the same configuration.
 */
/** fx's 429 body `{error, retryAfter}`; a used-up monthly quota says so and when it resets. */
export function tooManyRequestsBody(decision: RateLimitDecision): { error: string; retryAfter: number } {
  const monthExhausted = decision.windows.some((window) => window.name === 'month' && window.count > window.limit);
  const error = monthExhausted
    ? `Monthly quota exhausted. It resets at ${decision.resetAt.toISOString()}, in ${decision.retryAfterSeconds} seconds.`
    : `Rate limit exceeded. Try again in ${decision.retryAfterSeconds} seconds.`;
  return { error, retryAfter: decision.retryAfterSeconds };
}

export interface FxRateLimits {
  /** 'redis' (shared), 'memory' (embedded default) or 'memory-fallback' (Redis configured but failing: limits per instance). */
  store(): 'redis' | 'memory' | 'memory-fallback';
  close(): void;
}

export async function registerRateLimits(app: FastifyInstance, options: FxRateLimitOptions): Promise<FxRateLimits> {
  const now = () => options.clock().getTime();
  const memoryStore = new MemoryCounterStore({ clock: now });
  // With Redis, a Redis outage falls back to per-instance counting instead of no limits at all.
  const fallback = options.redis ? new FallbackCounterStore(new RedisCounterStore(options.redis, { prefix: options.keyPrefix ?? 'fx:rl:' }), memoryStore) : null;
  const store: CounterStore = fallback ?? memoryStore;
  const anonymous = createRateLimiter({ store, windows: anonymousWindows(options.limits), keyPrefix: 'ip', clock: now });

  await app.register(rateLimitPlugin, {
    resolve: (request) => (request.url.startsWith('/api/v1/') && !request.url.startsWith('/api/v1/health') ? { limiter: anonymous, key: request.ip } : null),
    headers: (decision) => ({ ...legacyRateLimitHeaders(decision, ['X-Rate-Limit-', 'X-RateLimit-']), ...draftRateLimitHeaders(decision, now()) }),
    onExceeded: (_request, reply, decision) => reply.code(429).send(tooManyRequestsBody(decision)),
  });
  return {
    store: () => (fallback ? (fallback.degraded ? 'memory-fallback' : 'redis') : 'memory'),
    close: () => memoryStore.close(),
  };
}
