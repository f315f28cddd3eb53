import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';

export const CORRELATION_ID_HEADER = 'x-correlation-id';

// A caller's id lands in our logs and audit rows: keep it short and free of control characters.
const ACCEPTABLE_CORRELATION_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Fastify's `genReqId`: the request id IS the correlation id, so Fastify binds it to
 * every log line of the request (as `correlationId`, see `requestIdLogLabel`). A
 * supplied value is kept when it is sane, otherwise a UUID is generated.
 */
export function correlationIdFromRequest(request: IncomingMessage): string {
  const supplied = request.headers[CORRELATION_ID_HEADER];
  const value = Array.isArray(supplied) ? supplied[0] : supplied;
  return value && ACCEPTABLE_CORRELATION_ID.test(value) ? value : randomUUID();
}

/** Echoes the correlation id on every response, errors and 404s included. */
export const correlationIdPlugin: FastifyPluginAsync = fp(
  async (app) => {
    // A callback hook: an async one would make a promise for every request.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-correlation-id', request.id);
      done();
    });
  },
  { name: '@svc/correlation-id' },
);
