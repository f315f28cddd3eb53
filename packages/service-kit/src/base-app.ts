import type { Server as HttpsServer, ServerOptions as HttpsServerOptions } from 'node:https';
import type { Database } from '@svc/db';
import { answerClientError, problemJsonPlugin, replyWithProblem } from '@svc/problem-json';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyHttpsOptions, type FastifyServerOptions, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { activeTelemetry } from '@svc/telemetry';
import { correlationIdPlugin } from './correlation-id.js';
import { healthRoute, type HealthExtension } from './health.js';
import { installListenerGuards, listenerTimeoutsOf, nodeServerOptions, type ListenerEnvironment } from './listener-guards.js';
import { serverOptions } from './logging.js';
import { createServiceMetrics, registerHttpMetrics } from './metrics.js';
import { registerOpenApi, type OpenApiDocumentOptions } from './openapi.js';
import { refuseNulCharacters } from './text-input.js';

export type ServiceApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

export interface BaseAppOptions {
  service: string;
  version: string;
  /** The service's parsed config: its LOG_LEVEL, and how long the listener waits for slow or silent clients (listenerVariables; safe defaults for those it lacks). */
  config: { LOG_LEVEL: string } & Partial<ListenerEnvironment>;
  /** securitySchemes: every scheme a route's `security` names must be declared here. */
  /** The document's info, servers and security schemes; the version is the service's. */
  openapi: Omit<OpenApiDocumentOptions, 'version'>;
  healthPath: string;
  database: Database<Record<string, unknown>> | Database;
  redis: Redis | null;
  /** Passed to Fastify: which proxies may set X-Forwarded-For (request.ip). Default: none. */
  trustProxy?: FastifyServerOptions['trustProxy'];
  /** A service's own members and checks in the shared health body (fx: data sources, limiter store). */
  healthExtension?: HealthExtension;
  /** Serve HTTPS (e.g. direct mutual TLS with requestCert); plain HTTP when absent. */
  https?: HttpsServerOptions;
}

/**
 * What every service app starts with, in this order: its metrics (every response counted),
 * correlation id (so even errors raised by later hooks carry it), problem+json errors, OpenAPI (before any route,
 * so every route is documented), then the health route.
 */
export async function createBaseApp(options: BaseAppOptions): Promise<ServiceApp> {
  const fastifyOptions = serverOptions({ logLevel: options.config.LOG_LEVEL, serviceName: options.service });
  if (options.trustProxy !== undefined) fastifyOptions.trustProxy = options.trustProxy;
  const timeouts = listenerTimeoutsOf(options.config);
  const nodeOptions = nodeServerOptions(timeouts);
  Object.assign(fastifyOptions, {
    // Fastify's names for the socket silence limit and the whole-request deadline.
    connectionTimeout: timeouts.silenceTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    http: nodeOptions,
    // Errors raised before any route (a malformed URL, an over-long path parameter, a header block
    // too large) answer problem+json like every other error.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => replyWithProblem(error, request, reply),
    clientErrorHandler: function (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
      answerClientError(error, socket, this.log);
    },
    // zod validates and serialises every route. Named here rather than only set below, Fastify never
    // loads its default Ajv and fast-json-stringify compilers: about 25 ms of every start.
    schemaController: { compilersFactory: { buildValidator: () => validatorCompiler, buildSerializer: () => serializerCompiler } },
  });
  // The HTTPS server is a drop-in for the HTTP one here: request.raw.socket is a TLSSocket.
  const app = (
    options.https ? (Fastify({ ...(fastifyOptions as FastifyHttpsOptions<HttpsServer>), https: { ...nodeOptions, ...options.https } }) as unknown as FastifyInstance) : Fastify(fastifyOptions)
  ).withTypeProvider<ZodTypeProvider>();
  // First: @fastify/otel wraps the request in its span before any other hook runs (tracing on only).
  const telemetry = activeTelemetry();
  if (telemetry) await app.register(telemetry.fastifyPlugin);
  installListenerGuards(app, timeouts);
  // Collected always (in memory, cheap); served only when runService is given METRICS_PORT.
  const metrics = createServiceMetrics({ service: options.service, database: options.database, log: app.log });
  app.decorate('metrics', metrics);
  registerHttpMetrics(app, metrics);
  await app.register(correlationIdPlugin);
  await app.register(problemJsonPlugin);
  // On the root, before any route: every route's input is checked.
  refuseNulCharacters(app);
  await registerOpenApi(app, { ...options.openapi, version: options.version });
  await app.register(healthRoute, {
    extension: options.healthExtension,
    path: options.healthPath,
    service: options.service,
    version: options.version,
    database: options.database,
    redis: options.redis,
  });
  return app;
}
