import { routingPath, type LastUsedBatcher } from '@svc/service-kit';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { authenticateApiKey, type ApiClient } from '../domain/clients/api-clients.js';
import type { FxExecutor } from '../db/executor.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API-key client of the request, or null for an anonymous one. */
    apiClient: ApiClient | null;
  }
}

export const CLIENT_PATH_PREFIX = '/api/v1/client/';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * X-Api-Key + X-Api-Secret: required on /client/*; optional on public data routes, where a
 * valid pair moves the request to the key's own limits and an invalid one is a 401 (never a
 * silent fall-back to anonymous). Runs before the rate limiter, which reads request.apiClient.
 */
const apiKeys: FastifyPluginAsync<{ db: FxExecutor; clock: () => Date; lastUsed: LastUsedBatcher }> = async (app, options) => {
  app.decorateRequest('apiClient', null);
  // A callback hook: most requests carry no key and leave at once, without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const path = routingPath(request);
    if (!path.startsWith('/api/v1/') || path.startsWith('/api/v1/admin/') || path === '/api/v1/health') return done();
    const publicKey = header(request, 'x-api-key');
    const privateKey = header(request, 'x-api-secret');
    const required = path.startsWith(CLIENT_PATH_PREFIX) || path === '/api/v1/client';
    if (!required && request.headers['x-api-key'] === undefined && request.headers['x-api-secret'] === undefined) return done();
    authenticateApiKey(options.db, publicKey, privateKey, options.clock()).then((client) => {
      request.apiClient = client;
      options.lastUsed.record(client.id, options.clock());
      done();
    }, done);
  });
};

export const apiKeysPlugin = fp(apiKeys, { name: 'fx-api-keys' });
