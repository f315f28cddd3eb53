import type { Database } from '@svc/db';
import { mailBacklog, mailHealthSchema } from '@svc/mailer';
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
      automatedChecks: z
        .object({
          provider: z.enum(['none', 'http', 'local', 'injected']),
          ready: z.boolean().nullable().describe('null: this provider cannot tell (a remote inference server)'),
          problems: z.array(z.string()).describe('What is missing, e.g. "ffmpeg is not installed: apt-get install -y ffmpeg". Live cases go to manual review until it is fixed, never to a pass.'),
        })
        .describe("The live tenants' checks provider of this process: with `local`, its models and ffmpeg. Not ready → degraded."),
      retention: z
        .object({
          due: z.number().int().describe('Closed cases past their retention, not yet handed to redaction (the next sweeps take them in batches)'),
          redacting: z.number().int().describe('Cases whose redaction was asked for and is not finished'),
        })
        .nullable()
        .describe('The retention backlog; null when the database is down'),
      mail: mailHealthSchema('identity'),
    }),
  })
  .meta({ id: 'IdentityHealth' });

/** The shared health body plus the job and delivery queues' depth, so queued work is visible without a CLI. */
export type AutomatedChecksHealth = { provider: 'none' | 'http' | 'local' | 'injected'; ready: boolean | null; problems: string[] };

export function identityHealthExtension(
  database: Database<IdentityDatabaseSchema>,
  automatedChecks: () => Promise<AutomatedChecksHealth>,
  retention: () => Promise<{ due: number; redacting: number }>,
  mailTransport: () => 'smtp' | 'file',
): HealthExtension {
  return {
    schema: identityHealthSchema,
    description: 'Database and Redis status, the job and delivery queues, and the automated checks. 200 when the database answers (Redis lost, or the local checks missing a model or ffmpeg → degraded), 503 otherwise.',
    async inspect(dependencies) {
      const checks = await automatedChecks().catch((error: unknown) => ({ provider: 'local' as const, ready: false, problems: [`status unavailable: ${(error as Error).name}`] }));
      const degraded = checks.ready === false;
      if (dependencies.status === 'down') return { degraded, checks: { jobs: [], webhooks: [], automatedChecks: checks, retention: null, mail: null } };
      const [jobDepth, webhookDepth, backlog, mail] = await Promise.all([
        queueDepth(database.db, jobs, { openOnly: true }).catch(() => []),
        queueDepth(database.db, webhookDeliveries, { openOnly: true }).catch(() => []),
        retention().catch(() => null),
        mailBacklog(database.db, jobs).catch(() => null),
      ]);
      const serialise = (depth: QueueDepth[]) => depth.map((row) => ({ ...row, oldestCreatedAt: row.oldestCreatedAt?.toISOString() ?? null }));
      const mailHealth = mail && { transport: mailTransport(), queued: mail.queued, retrying: mail.retrying, oldestQueuedAt: mail.oldestQueuedAt?.toISOString() ?? null };
      return { degraded: degraded || (mail?.retrying ?? 0) > 0, checks: { jobs: serialise(jobDepth), webhooks: serialise(webhookDepth), automatedChecks: checks, retention: backlog, mail: mailHealth } };
    },
  };
}
