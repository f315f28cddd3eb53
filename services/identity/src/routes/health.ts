import type { Database } from '@svc/db';
import { queueDepth, type QueueDepth } from '@svc/outbox';
import { healthResponseSchema, type HealthExtension } from '@svc/service-kit';
import { z } from 'zod';
import { jobs, webhookDeliveries, type IdentityDatabaseSchema } from '../db/schema.js';

const depthSchema = z.array(z.object({ kind: z.string(), status: z.enum(['pending', 'in_flight', 'failed']), count: z.number().int(), oldestCreatedAt: z.string().nullable() }));

const identityHealthSchema = healthResponseSchema
  .extend({
    checks: healthResponseSchema.shape.checks.extend({
      jobs: depthSchema.describe('Background jobs waiting or running, by kind and status (failed ones: cli jobs:status)'),
      webhooks: depthSchema.describe('Webhook deliveries waiting or being sent, by event type and status (kind); a paused endpoint\'s wait here'),
    }),
  })
  .meta({ id: 'IdentityHealth' });

/** The shared health body plus the job and delivery queues' depth, so queued work is visible without a CLI. */
export function identityHealthExtension(database: Database<IdentityDatabaseSchema>): HealthExtension {
  return {
    schema: identityHealthSchema,
    description: 'Database and Redis status and the job queue. 200 when the database answers (Redis lost → degraded), 503 otherwise.',
    async inspect(dependencies) {
      if (dependencies.status === 'down') return { degraded: false, checks: { jobs: [], webhooks: [] } };
      const [jobDepth, webhookDepth] = await Promise.all([
        queueDepth(database.db, jobs, { openOnly: true }).catch(() => []),
        queueDepth(database.db, webhookDeliveries, { openOnly: true }).catch(() => []),
      ]);
      const serialise = (depth: QueueDepth[]) => depth.map((row) => ({ ...row, oldestCreatedAt: row.oldestCreatedAt?.toISOString() ?? null }));
      return { degraded: false, checks: { jobs: serialise(jobDepth), webhooks: serialise(webhookDepth) } };
    },
  };
}
