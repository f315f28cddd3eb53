import type { Database } from '@svc/db';
import { queueDepth } from '@svc/outbox';
import { healthResponseSchema, type HealthExtension } from '@svc/service-kit';
import { z } from 'zod';
import { jobs, type IdentityDatabaseSchema } from '../db/schema.js';

const identityHealthSchema = healthResponseSchema
  .extend({
    checks: healthResponseSchema.shape.checks.extend({
      jobs: z
        .array(z.object({ kind: z.string(), status: z.enum(['pending', 'in_flight', 'failed']), count: z.number().int(), oldestCreatedAt: z.string().nullable() }))
        .describe('Background jobs waiting or running, by kind and status (failed ones: cli jobs:status)'),
    }),
  })
  .meta({ id: 'IdentityHealth' });

/** The shared health body plus the job queue's depth, so queued work is visible without a CLI. */
export function identityHealthExtension(database: Database<IdentityDatabaseSchema>): HealthExtension {
  return {
    schema: identityHealthSchema,
    description: 'Database and Redis status and the job queue. 200 when the database answers (Redis lost → degraded), 503 otherwise.',
    async inspect(dependencies) {
      if (dependencies.status === 'down') return { degraded: false, checks: { jobs: [] } };
      const depth = await queueDepth(database.db, jobs, { openOnly: true }).catch(() => []);
      return { degraded: false, checks: { jobs: depth.map((row) => ({ ...row, oldestCreatedAt: row.oldestCreatedAt?.toISOString() ?? null })) } };
    },
  };
}
