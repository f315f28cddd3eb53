import type { Database } from '@svc/db';
import { healthResponseSchema, type HealthExtension } from '@svc/service-kit';
import { z } from 'zod';
import type { FxDatabaseSchema } from '../db/schema.js';
import { sourceFreshness } from '../domain/rates/source-freshness.js';

export interface FxHealthOptions {
  database: Database<FxDatabaseSchema>;
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

/** The shared health body plus source freshness, the demo flag and the limiter store: stale sources → degraded (200). */
export function fxHealthExtension(options: FxHealthOptions): HealthExtension {
  return {
    schema: fxHealthSchema,
    description: 'down (503) only when the database cannot be reached; stale sources or Redis lost → degraded (200).',
    async inspect(dependencies) {
      const stale = { lastUpdateUtc: null, ageSeconds: null, stale: true };
      const databaseUp = dependencies.status !== 'down';
      const sources = databaseUp
        ? await sourceFreshness(options.database.db, options.clock(), options.staleAfterSeconds).catch(() => ({ CBS: stale, MARKET: stale }))
        : { CBS: stale, MARKET: stale };
      const rateLimitStore = options.rateLimitStore();
      return {
        degraded: sources.CBS.stale || sources.MARKET.stale || rateLimitStore === 'memory-fallback',
        members: { demo: databaseUp ? await options.isDemo().catch(() => false) : false },
        checks: { sources, rateLimits: { store: rateLimitStore } },
      };
    },
  };
}
