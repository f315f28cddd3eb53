import type { FastifyContextConfig, FastifyRequest } from 'fastify';

interface RouteContext {
  config?: FastifyContextConfig & { url?: string };
}

// `request.routeOptions` is a getter that builds a dozen-field object on every read, and the
// per-request hooks (limits, keys, metrics) each read it. Fastify keeps the matched route's
// context under an internal symbol on the request: found once, then read directly. Should a
// Fastify release rename it, the public getter is used instead (slower, the same answers).
let contextSymbol: symbol | null | undefined;
function routeContextOf(request: FastifyRequest): RouteContext | undefined {
  if (contextSymbol === undefined) contextSymbol = Object.getOwnPropertySymbols(request).find((symbol) => symbol.description === 'fastify.context') ?? null;
  return contextSymbol ? ((request as unknown as Record<symbol, RouteContext | undefined>)[contextSymbol] ?? undefined) : undefined;
}

/** The matched route's pattern (`/api/v1/rates/:currency`), or undefined for a request no route matched. */
export function routePattern(request: FastifyRequest): string | undefined {
  const context = routeContextOf(request);
  return context ? context.config?.url : request.routeOptions.url;
}

/** The matched route's `config` (its own options, e.g. `auth`), as `request.routeOptions.config` gives it. */
export function routeConfig(request: FastifyRequest): FastifyContextConfig {
  const context = routeContextOf(request);
  return (context ? context.config : request.routeOptions.config) ?? {};
}

/**
 * The path a request is judged by: the matched route's pattern when there is one (the router
 * decodes percent-escapes, so `/api/%70artner/…` reaches a `/api/partner/…` route), else the
 * decoded URL path. Judging by the raw URL would let an encoded path skip prefix-based checks.
 */
export function routingPath(request: FastifyRequest): string {
  const pattern = routePattern(request);
  if (pattern) return pattern;
  const raw = request.url.split('?', 1)[0] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
