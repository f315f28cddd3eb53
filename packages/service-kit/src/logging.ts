import { activeTelemetry } from '@svc/telemetry';
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
      ...traceLogFields(),
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

/**
 * With tracing on, every log line carries the active span's `trace_id` and `span_id` beside the
 * request's `correlationId`, so a trace leads to its logs and back. Nothing is added with it off.
 */
export function traceLogFields(): { mixin?: () => Record<string, string> } {
  const telemetry = activeTelemetry();
  return telemetry ? { mixin: () => telemetry.logFields() } : {};
}
