import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ProblemError } from '@svc/problem-json';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

export interface RateLimitTarget {
  limiter: RateLimiter;
  key: string;
  /** Which limit this is, for metrics (`ip`, `key`…): a small fixed set, never the key itself. Default `default`. */
  name?: string;
}

/** What became of a limited request: counted and let through, turned away, or not counted because the store failed. */
export type RateLimitOutcome = 'allowed' | 'limited' | 'store_error';

export interface RateLimitPluginOptions {
  /** Chooses the limiter and key for a request; null = not limited (health checks, docs). */
  resolve: (request: FastifyRequest) => RateLimitTarget | null | Promise<RateLimitTarget | null>;
  /** Response headers for a decision; every limited response carries them, allowed or denied. */
  headers: (decision: RateLimitDecision) => Record<string, string>;
  /** Sends the 429; headers and Retry-After are already set. */
  onExceeded: (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => FastifyReply | Promise<FastifyReply>;
  /** When the store fails (Redis down): 'allow' (default, logged at warn) or 'deny' with 503. */
  onStoreError?: 'allow' | 'deny';
  /** Told of every decision (metrics); must be cheap and must not throw. */
  onDecision?: (limit: string, outcome: RateLimitOutcome) => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The rate-limit decision for this request, or null when it is not limited. */
    rateLimit: RateLimitDecision | null;
  }
}

/**
 * Our own small onRequest hook instead of @fastify/rate-limit: a policy has several
 * windows checked in one store round trip, and the key and policy are chosen per request
 * (fx moves an authenticated request from per-IP to per-key limits).
 */
const rateLimit: FastifyPluginAsync<RateLimitPluginOptions> = async (app, options) => {
  app.decorateRequest('rateLimit', null);
  app.addHook('onRequest', async (request, reply) => {
    const target = await options.resolve(request);
    if (!target) return;
    let decision: RateLimitDecision;
    try {
      decision = await target.limiter.check(target.key);
    } catch (error) {
      request.log.warn({ err: error }, 'rate-limit store failed');
      options.onDecision?.(target.name ?? 'default', 'store_error');
      if (options.onStoreError === 'deny') {
        throw new ProblemError({
          status: 503,
          code: 'SERVICE_UNAVAILABLE',
          title: 'Service Unavailable',
          detail: 'Rate limiting is temporarily unavailable; retry shortly.',
          headers: { 'Retry-After': '5' },
        });
      }
      return;
    }
    request.rateLimit = decision;
    options.onDecision?.(target.name ?? 'default', decision.allowed ? 'allowed' : 'limited');
    reply.headers(options.headers(decision));
    if (!decision.allowed) {
      reply.header('Retry-After', String(decision.retryAfterSeconds));
      return options.onExceeded(request, reply, decision);
    }
  });
};

export const rateLimitPlugin = fp(rateLimit, { name: '@svc/rate-limit', fastify: '5.x' });
