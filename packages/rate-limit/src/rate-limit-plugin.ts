import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ProblemError } from '@svc/problem-json';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

export interface RateLimitTarget {
  limiter: RateLimiter;
  key: string;
}

export interface RateLimitPluginOptions {
  /** Chooses the limiter and key for a request; null = not limited (health checks, docs). */
  resolve: (request: FastifyRequest) => RateLimitTarget | null | Promise<RateLimitTarget | null>;
  /** Response headers for a decision; every limited response carries them, allowed or denied. */
  headers: (decision: RateLimitDecision) => Record<string, string>;
  /** Sends the 429; headers and Retry-After are already set. */
  onExceeded: (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => FastifyReply | Promise<FastifyReply>;
  /** When the store fails (Redis down): 'allow' (default, logged at warn) or 'deny' with 503. */
  onStoreError?: 'allow' | 'deny';
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
    reply.headers(options.headers(decision));
    if (!decision.allowed) {
      reply.header('Retry-After', String(decision.retryAfterSeconds));
      return options.onExceeded(request, reply, decision);
    }
  });
};

export const rateLimitPlugin = fp(rateLimit, { name: '@svc/rate-limit', fastify: '5.x' });
