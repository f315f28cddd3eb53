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
import { routingPath } from '@svc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { DatabaseCounterStore } from '../domain/limits/database-counter-store.js';
import { anonymousWindows, planWindows, type LimitsConfiguration, type PlanLimits } from '../domain/limits/plans.js';
import type { FxExecutor } from '../db/executor.js';
import { CLIENT_PATH_PREFIX } from './api-keys.js';

export interface FxRateLimitOptions {
  limits: LimitsConfiguration;
  redis: Redis | null;
  clock: () => Date;
  /** The clock in epoch milliseconds, when there is a cheaper one than clock() (Date.now: no Date per call). */
  nowMs?: () => number;
  /** Redis key prefix; tests pass a random one. */
  keyPrefix?: string;
  /** Keyed counters live here when there is no Redis, so monthly quotas survive restarts. */
  db: FxExecutor;
  /** Told of every keyed request once it is answered (the dashboard's daily counts, /client/* included); must be cheap. */
  onKeyedData?: (clientId: string, atMs: number, allowed: boolean) => void;
}

/**
 * Anonymous requests are limited per client IP (request.ip honours TRUSTED_PROXIES via
 * Fastify trustProxy). A request with a valid API key (request.apiClient) is limited per key
 * instead, by its plan: 60 per minute plus the monthly quota on data routes; the same minute
 * counter but no quota on /client/* (managing webhooks does not spend the data quota).
 */
/** fx's 429 body `{error, retryAfter}`; a used-up monthly quota says so and when it resets. */
export function tooManyRequestsBody(decision: RateLimitDecision): { error: string; retryAfter: number } {
  const monthExhausted = decision.windows.some((window) => window.name === 'month' && window.count > window.limit);
  const error = monthExhausted
    ? `Monthly quota exhausted. It resets at ${decision.resetAt.toISOString()}, in ${decision.retryAfterSeconds} seconds.`
    : `Rate limit exceeded. Try again in ${decision.retryAfterSeconds} seconds.`;
  return { error, retryAfter: decision.retryAfterSeconds };
}

/**
 * The spec's own spelling only: it says the variant `X-RateLimit-*` "also appears for the same
 * information", and three more headers on every answer cost more than a client gains from a
 * second copy (see docs/decisions).
 */
const LEGACY_PREFIXES = ['X-Rate-Limit-'] as const;

/** Every header the limits write on a response: a cross-origin page is allowed to read them (CORS). */
export const RATE_LIMIT_HEADER_NAMES: readonly string[] = [
  ...LEGACY_PREFIXES.flatMap((prefix) => ['Limit', 'Remaining', 'Reset'].map((suffix) => prefix + suffix)),
  'RateLimit',
  'RateLimit-Policy',
  'X-Quota-Limit',
  'X-Quota-Remaining',
  'Retry-After',
];

export interface FxRateLimits {
  /** 'redis' (shared), 'memory' (embedded default) or 'memory-fallback' (Redis configured but failing: limits per instance). */
  store(): 'redis' | 'memory' | 'memory-fallback';
  close(): void;
  /** A client's monthly window as the limiter counts it, without counting; null for a plan without a quota. */
  monthWindow: (client: { id: string; plan: string }) => Promise<{ count: number; quota: number; resetUtc: Date } | null>;
}

/** X-Quota-Limit / X-Quota-Remaining from the monthly window, written into `into`; none for an unlimited plan. */
export function quotaHeaders(decision: RateLimitDecision, into: Record<string, string> = {}): Record<string, string> {
  const month = decision.windows.find((window) => window.name === 'month');
  if (!month) return into;
  into['x-quota-limit'] = String(month.limit);
  into['x-quota-remaining'] = String(Math.max(0, month.limit - month.count));
  return into;
}

export async function registerRateLimits(app: FastifyInstance, options: FxRateLimitOptions): Promise<FxRateLimits> {
  const now = options.nowMs ?? (() => options.clock().getTime());
  const memoryStore = new MemoryCounterStore({ clock: now });
  // With Redis, a Redis outage falls back to per-instance counting instead of no limits at all.
  const fallback = options.redis ? new FallbackCounterStore(new RedisCounterStore(options.redis, { prefix: options.keyPrefix ?? 'fx:rl:' }), memoryStore) : null;
  const store: CounterStore = fallback ?? memoryStore;
  const keyedStore: CounterStore = fallback ?? new DatabaseCounterStore(options.db, now);
  const anonymous = createRateLimiter({ store, windows: anonymousWindows(options.limits), keyPrefix: 'ip', clock: now });
  const keyed = new Map(
    options.limits.plans.map((plan) => {
      const windows = planWindows(plan);
      return [
        plan.name,
        {
          data: createRateLimiter({ store: keyedStore, windows, keyPrefix: 'key', clock: now }),
          management: createRateLimiter({ store: keyedStore, windows: windows.filter((window) => window.name !== 'month'), keyPrefix: 'key', clock: now }),
        },
      ] as const;
    }),
  );

  function resolve(request: FastifyRequest) {
    const path = routingPath(request);
    if (!path.startsWith('/api/v1/') || path === '/api/v1/health') return null;
    const client = request.apiClient;
    // Limit names for metrics: per IP, or per key on data or management routes (plans are not labels: an operator may add many).
    if (!client) return { limiter: anonymous, name: 'ip', key: request.ip };
    const limiters = keyed.get(client.plan);
    if (!limiters) throw new Error(`no limits configured for plan ${client.plan}`);
    return path.startsWith(CLIENT_PATH_PREFIX) ? { limiter: limiters.management, name: 'key_management', key: client.id } : { limiter: limiters.data, name: 'key_data', key: client.id };
  }

  await app.register(rateLimitPlugin, {
    resolve,
    // One object filled in place: spreading three objects per request cost more than building them.
    headers: (decision) => quotaHeaders(decision, draftRateLimitHeaders(decision, now(), legacyRateLimitHeaders(decision, LEGACY_PREFIXES))),
    onExceeded: (_request, reply, decision) => reply.code(429).send(tooManyRequestsBody(decision)),
    onDecision: (limit, outcome) => app.metrics.recordRateLimitDecision(limit, outcome),
  });
  const onKeyedData = options.onKeyedData;
  if (onKeyedData)
    app.addHook('onResponse', (request, _reply, done) => {
      const client = request.apiClient;
      if (client && request.rateLimit) onKeyedData(client.id, now(), request.rateLimit.allowed);
      done();
    });
  const limits: FxRateLimits = {
    store: () => (fallback ? (fallback.degraded ? 'memory-fallback' : 'redis') : 'memory'),
    close: () => memoryStore.close(),
    monthWindow: async (client) => {
      const limiter = keyed.get(client.plan as PlanLimits['name'])?.data;
      const month = limiter && (await limiter.peek(client.id)).find((window) => window.name === 'month');
      return month ? { count: month.count, quota: month.limit, resetUtc: month.resetAt } : null;
    },
  };
  app.metrics.watchLimiterStore(() => limits.store());
  return limits;
}
