import type { Database } from '@svc/db';
import { checkDependencies, healthResponseSchema } from '@svc/service-kit';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { FxDatabaseSchema } from '../db/schema.js';
import { sourceFreshness } from '../domain/rates/source-freshness.js';

export interface FxHealthOptions {
  path: string;
  service: string;
  version: string;
  database: Database<FxDatabaseSchema>;
  redis: Redis | null;
  clock: () => Date;
  staleAfterSeconds: number;
  /** True while the data is the generated demo history. */
  isDemo: () => Promise<boolean>;
  /** Which store the rate limiter counts in right now. */
  rateLimitStore: () => 'redis' | 'memory' | 'memory-fallback';
}

const sourceSchema = z.object({ lastUpdateUtc: z.string().nullable(), ageSeconds: z.number().int().nullable(), stale: z.boolean() });
const fxHealthSchema = healthResponseSchema
  .extend({
    demo: z.boolean().describe('true while serving generated demo data'),
    checks: healthResponseSchema.shape.checks.extend({
      sources: z.object({ CBS: sourceSchema, MARKET: sourceSchema }),
      rateLimits: z.object({ store: z.enum(['redis', 'memory', 'memory-fallback']).describe('memory-fallback: Redis failing, limits counted per instance') }),
    }),
  })
  .meta({ id: 'FxHealth' });

/** The shared health body plus source freshness and the demo flag: stale sources → degraded (200). */
export const fxHealthRoute: FastifyPluginAsync<FxHealthOptions> = async (app, options) => {
  const startedAt = Date.now();
  app.withTypeProvider<ZodTypeProvider>().get(
    options.path,
    {
      schema: {
        summary: 'Service health',
        description: 'down (503) only when the database cannot be reached; stale sources or Redis lost → degraded (200).',
        tags: ['health'],
        response: { 200: fxHealthSchema, 503: fxHealthSchema },
      },
    },
    async (_request, reply) => {
      const dependencies = await checkDependencies(options.database, options.redis);
      const now = options.clock();
      const stale = { lastUpdateUtc: null, ageSeconds: null, stale: true };
      const sources =
        dependencies.status === 'down'
          ? { CBS: stale, MARKET: stale }
          : await sourceFreshness(options.database.db, now, options.staleAfterSeconds).catch(() => ({ CBS: stale, MARKET: stale }));
      const anyStale = sources.CBS.stale || sources.MARKET.stale;
      const rateLimitStore = options.rateLimitStore();
      const status = dependencies.status === 'ok' && (anyStale || rateLimitStore === 'memory-fallback') ? 'degraded' : dependencies.status;
      reply.header('Cache-Control', 'no-store');
      return reply.code(status === 'down' ? 503 : 200).send({
        status,
        service: options.service,
        version: options.version,
        uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
        demo: dependencies.status === 'down' ? false : await options.isDemo().catch(() => false),
        checks: { ...dependencies.checks, sources, rateLimits: { store: rateLimitStore } },
      });
    },
  );
};
