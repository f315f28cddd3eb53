import type { Database } from '@svc/db';
import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { checkDependencies, type DependencyHealth } from './dependencies.js';

export const healthResponseSchema = z
  .object({
    status: z.enum(['ok', 'degraded', 'down']).describe('down (503) only when the database cannot be reached'),
    service: z.string(),
    version: z.string(),
    uptimeSeconds: z.number().int(),
    checks: z.object({
      database: z.object({ status: z.enum(['ok', 'down']), driver: z.enum(['pglite', 'postgres']) }),
      redis: z.object({
        status: z.enum(['ok', 'down', 'not_configured']),
        store: z.enum(['redis', 'memory']).describe('memory: in-process stores, single instance only'),
      }),
    }),
  })
  .meta({ id: 'Health' });

export type HealthResponse = z.infer<typeof healthResponseSchema>;

/**
 * What a service adds to the shared health body: more top-level members and checks, and
 * whether they make it degraded. `schema` is the shared one extended (healthResponseSchema.extend).
 */
export interface HealthExtension {
  schema: z.ZodType;
  description?: string;
  inspect(dependencies: DependencyHealth): Promise<{ degraded: boolean; members?: Record<string, unknown>; checks?: Record<string, unknown> }>;
}

export interface HealthRouteOptions {
  path: string;
  service: string;
  version: string;
  database: Database<Record<string, unknown>> | Database;
  redis: Redis | null;
  extension?: HealthExtension | undefined;
}

/** Liveness and dependency status, unauthenticated, never cached. */
export const healthRoute: FastifyPluginAsync<HealthRouteOptions> = async (app, options) => {
  const startedAt = Date.now();
  app.withTypeProvider<ZodTypeProvider>().get(
    options.path,
    {
      // Probes call it every few seconds: a trace each would bury the ones that matter.
      config: { otel: false },
      schema: {
        summary: 'Service health',
        description: options.extension?.description ?? 'Database and Redis status. 200 when the database answers (Redis lost → degraded), 503 otherwise.',
        operationId: 'getHealth',
        tags: ['health'],
        // Probes and load balancers call it without credentials.
        security: [],
        // No parameters: a query string is refused, so a typo such as ?verbose=1 is not silently ignored.
        querystring: z.strictObject({}),
        response: {
          200: options.extension?.schema ?? healthResponseSchema,
          ...problemResponses({ 400: 'A query parameter was sent; health takes none' }),
          503: options.extension?.schema ?? healthResponseSchema,
        },
      },
    },
    async (_request, reply) => {
      const dependencies = await checkDependencies(options.database, options.redis);
      const extra = options.extension ? await options.extension.inspect(dependencies) : { degraded: false };
      const status = dependencies.status === 'ok' && extra.degraded ? 'degraded' : dependencies.status;
      const body: HealthResponse & Record<string, unknown> = {
        status,
        service: options.service,
        version: options.version,
        uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
        ...extra.members,
        checks: { ...dependencies.checks, ...extra.checks },
      };
      reply.header('Cache-Control', 'no-store');
      return reply.code(status === 'down' ? 503 : 200).send(body);
    },
  );
};
