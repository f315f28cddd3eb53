import type { FastifyPluginCallback } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Every API answer speaks of one caller (a case, a session, a key, an error about either), so none
 * may be kept by a browser or a shared cache: `Cache-Control: no-store` unless the route set a
 * policy of its own (the evidence files' `private, no-store`, the public OAuth metadata's
 * max-age). One hook instead of a header written by hand in every route, which the next route forgets.
 */
const noStoreByDefault: FastifyPluginCallback<{ prefix: string }> = (app, options, done) => {
  app.addHook('onSend', (request, reply, payload, next) => {
    if (request.url.startsWith(options.prefix) && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    next(null, payload);
  });
  done();
};

export const noStoreByDefaultPlugin = fp(noStoreByDefault, { name: 'identity-no-store-by-default' });
