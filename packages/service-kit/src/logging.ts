import { LogController, type FastifyServerOptions } from 'fastify';
import { correlationIdFromRequest } from './correlation-id.js';
import { lazyRequestLoggerFactory } from './request-logger.js';

/**
 * Fastify server options every service shares: pino at the configured level with
 * credentials redacted wherever they could appear, and the correlation id as request id.
 */
export function serverOptions(options: { logLevel: string; serviceName: string }): FastifyServerOptions {
  return {
    logger: {
      level: options.logLevel,
      base: { service: options.serviceName },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-api-secret"]',
          'req.headers["x-admin-token"]',
          'res.headers["set-cookie"]',
          '*.password',
          '*.secret',
          '*.token',
        ],
        censor: '[redacted]',
      },
    },
    genReqId: correlationIdFromRequest,
    childLoggerFactory: lazyRequestLoggerFactory,
    logController: new LogController({ requestIdLogLabel: 'correlationId' }),
    requestIdHeader: false,
    // Deployments sit behind a proxy; which hops are trusted is decided per service.
    trustProxy: false,
    return503OnClosing: true,
  };
}
