import type { Database } from '@svc/db';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { checkDependencies } from './dependencies.js';

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

export interface HealthRouteOptions {
  path: string;
  service: string;
  version: string;
  database: Database<Record<string, unknown>> | Database;
  redis: Redis | null;
}

/** Liveness and dependency status, unauthenticated, never cached. */
export const healthRoute: FastifyPluginAsync<HealthRouteOptions> = async (app, options) => {
  const startedAt = Date.now();
  app.withTypeProvider<ZodTypeProvider>().get(
    options.path,
    {
      schema: {
        summary: 'Service health',
        description: 'Database and Redis status. 200 when the database answers (Redis lost → degraded), 503 otherwise.',
        tags: ['health'],
        response: { 200: healthResponseSchema, 503: healthResponseSchema },
      },
    },
    async (_request, reply) => {
      const dependencies = await checkDependencies(options.database, options.redis);
      const body: HealthResponse = {
        status: dependencies.status,
        service: options.service,
        version: options.version,
        uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
        checks: dependencies.checks,
      };
      reply.header('Cache-Control', 'no-store');
      return reply.code(body.status === 'down' ? 503 : 200).send(body);
    },
  );
};
