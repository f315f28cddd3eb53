import type { FastifyRequest } from 'fastify';

/**
 * The path a request is judged by: the matched route's pattern when there is one (the router
 * decodes percent-escapes, so `/api/%70artner/…` reaches a `/api/partner/…` route), else the
 * decoded URL path. Judging by the raw URL would let an encoded path skip prefix-based checks.
 */
export function routingPath(request: FastifyRequest): string {
  if (request.routeOptions.url) return request.routeOptions.url;
  const raw = request.url.split('?', 1)[0] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
