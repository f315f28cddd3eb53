import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesIfNoneMatch, type CachedResponse } from './response-cache.js';

/** How long browsers and shared caches may reuse a public body before revalidating its ETag. */
export const PUBLIC_MAX_AGE_SECONDS = 30;
const PUBLIC_CACHE_CONTROL = `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`;

/**
 * Serves a cached public body with its ETag, or 304 when the client already has it. The body
 * is pre-serialized JSON bytes (Fastify sends a Buffer as it is, without the response
 * schema's serializer); the compute functions are typed against the response shape instead.
 */
export function sendCached(request: FastifyRequest, reply: FastifyReply, entry: CachedResponse, contentType = 'application/json; charset=utf-8'): FastifyReply {
  reply.header('etag', entry.etag);
  reply.header('cache-control', PUBLIC_CACHE_CONTROL);
  if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) return reply.code(304).send();
  return reply.code(200).type(contentType).send(entry.body);
}

/** A Vary value with `name` added to what the answer already varies on (the CORS hook's `Origin`, say). */
export function addVary(current: string | number | string[] | undefined, name: string): string {
  const present = Array.isArray(current) ? current.join(', ') : current === undefined ? '' : String(current);
  return present === '' ? name : `${present}, ${name}`;
}
