import type { FastifyPluginCallback } from 'fastify';
import fp from 'fastify-plugin';

export interface PublicCorsOptions {
  /** The methods a cross-origin page may use (the preflight's Access-Control-Allow-Methods). */
  methods: readonly string[];
  /** Response headers a cross-origin page may read beyond the CORS-safelisted ones (Access-Control-Expose-Headers). */
  exposedHeaders: readonly string[];
}

/**
 * Public data for any origin: `Access-Control-Allow-Origin: *` on every answer to a request that
 * carries `Origin` (a browser's cross-origin fetch), and preflights answered 204 with the allowed
 * methods and the request headers the page asked for (an API key header, say). Such an answer also
 * names the headers a page may read (rate limits, quota, Retry-After, ETag, correlation id). A
 * request without `Origin` (curl, a server, an SDK) gets neither: nobody there reads them, and the
 * long expose list cost a bare server a tenth of its throughput. Every answer says `Vary: Origin`,
 * so a shared cache never hands a stored no-CORS answer to a page. No credentials: the public API
 * takes none from cookies. What @fastify/cors does for a fixed `*` origin, in one callback hook:
 * its per-request option merging and route-option lookups cost a cached GET as much as the
 * response's own headers.
 */
const publicCors: FastifyPluginCallback<PublicCorsOptions> = (app, options, done) => {
  const allowMethods = options.methods.join(', ');
  const exposeHeaders = options.exposedHeaders.join(', ');
  app.addHook('onRequest', (request, reply, next) => {
    if (request.method !== 'OPTIONS') {
      reply.header('vary', 'Origin');
      if (request.headers.origin === undefined) return next();
      reply.header('access-control-allow-origin', '*');
      // Without it a page's fetch() sees only the safelisted headers: no quota, no Retry-After, no ETag.
      reply.header('access-control-expose-headers', exposeHeaders);
      return next();
    }
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-allow-methods', allowMethods);
    reply.header('vary', 'Access-Control-Request-Headers');
    const requested = request.headers['access-control-request-headers'];
    if (requested) reply.header('access-control-allow-headers', requested);
    reply.code(204).header('content-length', '0').send();
  });
  // A route, so that a preflight is not counted as a 404; the hook has answered before it runs.
  app.options('*', { schema: { hide: true } }, (_request, reply) => reply.code(204).send());
  done();
};

export const publicCorsPlugin = fp(publicCors, { name: 'fx-public-cors' });
