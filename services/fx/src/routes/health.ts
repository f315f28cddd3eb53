import type { Database } from '@svc/db';
import { mailHealthSchema } from '@svc/mailer';
import { healthResponseSchema, type HealthExtension } from '@svc/service-kit';
import { z } from 'zod';
import type { FxDatabaseSchema } from '../db/schema.js';
import { sourceFreshness } from '../domain/rates/source-freshness.js';
import type { UpstreamStatus } from '../workers/source-runner.js';

export interface FxHealthOptions {
  database: Database<FxDatabaseSchema>;
  clock: () => Date;
  staleAfterSeconds: number;
  /** True while the data is the generated demo history. */
  isDemo: () => Promise<boolean>;
  /** Which store the rate limiter counts in right now. */
  rateLimitStore: () => 'redis' | 'memory' | 'memory-fallback';
  /** The sources of FX_SOURCES_FILE (none when unset) and the prices they leave stale. */
  upstreams: () => Promise<{ sources: UpstreamStatus[]; stalePrices: string[] }>;
  /** The mail transport and queue: mails failing and waiting for a retry → degraded. */
  mail: () => Promise<{ transport: 'smtp' | 'file'; queued: number; retrying: number; oldestQueuedAt: Date | null }>;
}

const sourceSchema = z.object({ lastUpdateUtc: z.string().nullable(), ageSeconds: z.number().int().nullable(), stale: z.boolean() });
const upstreamSchema = z.object({
  name: z.string(),
  kind: z.enum(['rates', 'crypto', 'gold']),
  connector: z.string().nullable().describe('the built-in connector, or null for a declarative source'),
  proxy: z.boolean().describe('true when it serves a stand-in (PAXG for gold)'),
  lastSuccessUtc: z.string().nullable(),
  lastError: z.string().nullable(),
  ageSeconds: z.number().int().nullable().describe('age of its newest quote'),
  stale: z.boolean().describe('no quote fresher than its maxAgeSeconds'),
  contributing: z.boolean().describe('its quotes are in the prices served now'),
  nextAttemptUtc: z.string().describe('when it is fetched next (later while backing off)'),
});
const fxHealthSchema = healthResponseSchema
  .extend({
    demo: z.boolean().describe('true while serving generated demo data'),
    checks: healthResponseSchema.shape.checks.extend({
      sources: z.object({ CBS: sourceSchema, MARKET: sourceSchema }),
      upstreams: z.array(upstreamSchema).describe('every source of FX_SOURCES_FILE'),
      stalePrices: z.array(z.string()).describe('prices (crypto:BTC, gold:XAU, rates:MARKET:USD) served at their previous value: no fresh agreeing quotes'),
      mail: mailHealthSchema('fx'),
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
      const upstreams = await options.upstreams();
      const mail = databaseUp ? await options.mail().catch(() => null) : null;
      return {
        degraded: sources.CBS.stale || sources.MARKET.stale || rateLimitStore === 'memory-fallback' || upstreams.sources.some((source) => source.stale) || (mail?.retrying ?? 0) > 0,
        members: { demo: databaseUp ? await options.isDemo().catch(() => false) : false },
        checks: { sources, upstreams: upstreams.sources, stalePrices: upstreams.stalePrices, rateLimits: { store: rateLimitStore }, mail: mail && { ...mail, oldestQueuedAt: mail.oldestQueuedAt?.toISOString() ?? null } },
      };
    },
  };
}
