import type { Database } from '@svc/db';
import { problemJsonPlugin } from '@svc/problem-json';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { correlationIdPlugin } from './correlation-id.js';
import { healthRoute } from './health.js';
import { serverOptions } from './logging.js';
import { registerOpenApi } from './openapi.js';

export type ServiceApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

export interface BaseAppOptions {
  service: string;
  version: string;
  logLevel: string;
  openapi: { title: string; description: string };
  healthPath: string;
  database: Database<Record<string, unknown>> | Database;
  redis: Redis | null;
}

/**
 * What every service app starts with, in this order: correlation id first (so even
 * errors raised by later hooks carry it), problem+json errors, OpenAPI (before any route,
 * so every route is documented), then the health route.
 */
export async function createBaseApp(options: BaseAppOptions): Promise<ServiceApp> {
  const app = Fastify(serverOptions({ logLevel: options.logLevel, serviceName: options.service })).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(correlationIdPlugin);
  await app.register(problemJsonPlugin);
  await registerOpenApi(app, { ...options.openapi, version: options.version });
  await app.register(healthRoute, {
    path: options.healthPath,
    service: options.service,
    version: options.version,
    database: options.database,
    redis: options.redis,
  });
  return app;
}
