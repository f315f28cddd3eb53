import { RateLimitedError } from '@svc/problem-json';
import { createRateLimiter, draftRateLimitHeaders, FallbackCounterStore, legacyRateLimitHeaders, MemoryCounterStore, rateLimitPlugin, RedisCounterStore } from '@svc/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { routingPath } from '@svc/service-kit';

export interface IdentityRateLimitOptions {
  perMinute: number;
  /** Each base path is counted apart per IP (the partner API and the end users' capture API). */
  basePaths: readonly string[];
  redis: Redis | null;
  clock: () => Date;
  keyPrefix?: string;
}

/**
 * 120 requests per client IP per fixed minute on each API (health and docs are not
 * counted). request.ip honours X-Forwarded-For only from TRUSTED_PROXIES (Fastify trustProxy).
 * With Redis the count is shared by every instance; if Redis fails, each instance counts alone.
 */
export async function registerIdentityRateLimit(app: FastifyInstance, options: IdentityRateLimitOptions): Promise<{ close(): void }> {
  const now = () => options.clock().getTime();
  const memory = new MemoryCounterStore({ clock: now });
  const fallback = options.redis ? new FallbackCounterStore(new RedisCounterStore(options.redis, { prefix: options.keyPrefix ?? 'identity:rl:' }), memory) : null;
  const store = fallback ?? memory;
  app.metrics.watchLimiterStore(() => (fallback ? (fallback.degraded ? 'memory-fallback' : 'redis') : 'memory'));
  const limiter = createRateLimiter({ store, windows: [{ name: 'minute', limit: options.perMinute, windowMs: 60_000 }], keyPrefix: 'ip', clock: now });
  await app.register(rateLimitPlugin, {
    resolve: (request) => {
      const path = routingPath(request);
      const basePath = options.basePaths.find((base) => path.startsWith(`${base}/`));
      // The limit's metrics name is its base path: one per API, a fixed handful.
      return basePath === undefined ? null : { limiter, name: basePath, key: basePath === options.basePaths[0] ? request.ip : `${basePath}:${request.ip}` };
    },
    onDecision: (limit, outcome) => app.metrics.recordRateLimitDecision(limit, outcome),
    headers: (decision) => draftRateLimitHeaders(decision, now(), legacyRateLimitHeaders(decision)),
    onExceeded: (_request, _reply, decision) => {
      throw new RateLimitedError(decision.retryAfterSeconds, `More than ${options.perMinute} requests per minute from this address. Retry after ${decision.retryAfterSeconds} seconds.`);
    },
  });
  return { close: () => memory.close() };
}
