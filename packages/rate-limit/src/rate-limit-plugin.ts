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

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * Our own small onRequest hook instead of @fastify/rate-limit: a policy has several
 * windows checked in one store round trip, and the key and policy are chosen per request
 * (fx moves an authenticated request from per-IP to per-key limits). A callback hook that
 * makes no promise when the target and the store answer at once (in-memory counting): every
 * request passes here.
 */
const rateLimit: FastifyPluginAsync<RateLimitPluginOptions> = async (app, options) => {
  app.decorateRequest('rateLimit', null);

  function storeFailed(request: FastifyRequest, target: RateLimitTarget, error: unknown, done: (error?: Error) => void): void {
    request.log.warn({ err: error }, 'rate-limit store failed');
    options.onDecision?.(target.name ?? 'default', 'store_error');
    if (options.onStoreError !== 'deny') return done();
    done(
      new ProblemError({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        title: 'Service Unavailable',
        detail: 'Rate limiting is temporarily unavailable; retry shortly.',
        headers: { 'Retry-After': '5' },
      }),
    );
  }

  function apply(request: FastifyRequest, reply: FastifyReply, target: RateLimitTarget, decision: RateLimitDecision, done: (error?: Error) => void): void {
    request.rateLimit = decision;
    options.onDecision?.(target.name ?? 'default', decision.allowed ? 'allowed' : 'limited');
    reply.headers(options.headers(decision));
    if (decision.allowed) return done();
    reply.header('Retry-After', String(decision.retryAfterSeconds));
    // onExceeded answers (then the hook ends without done) or throws the error to answer.
    let answered: FastifyReply | Promise<FastifyReply>;
    try {
      answered = options.onExceeded(request, reply, decision);
    } catch (error) {
      return done(error as Error);
    }
    // The reply itself is a thenable (it settles when sent): only an async onExceeded's promise is awaited here.
    if (answered !== reply && isPromise(answered)) answered.then(() => undefined, (error: Error) => done(error));
  }

  function limit(request: FastifyRequest, reply: FastifyReply, target: RateLimitTarget | null, done: (error?: Error) => void): void {
    if (!target) return done();
    let decided: RateLimitDecision | Promise<RateLimitDecision>;
    try {
      decided = target.limiter.decide(target.key);
    } catch (error) {
      return storeFailed(request, target, error, done);
    }
    if (!isPromise(decided)) return apply(request, reply, target, decided, done);
    decided.then(
      (decision) => apply(request, reply, target, decision, done),
      (error: unknown) => storeFailed(request, target, error, done),
    );
  }

  app.addHook('onRequest', (request, reply, done) => {
    let target: RateLimitTarget | null | Promise<RateLimitTarget | null>;
    try {
      target = options.resolve(request);
    } catch (error) {
      return done(error as Error);
    }
    if (!isPromise(target)) return limit(request, reply, target, done);
    target.then((resolved) => limit(request, reply, resolved, done), done);
  });
};

export const rateLimitPlugin = fp(rateLimit, { name: '@svc/rate-limit', fastify: '5.x' });
