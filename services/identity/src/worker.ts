import { runWorker } from '@svc/service-kit';
import { loadIdentityConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';
import { createIdentityWorker } from './workers/identity-worker.js';

/**
 * The job worker and expiry sweep alone (`pnpm --filter @svc/identity worker`), for deployments
 * that run API instances with WORKER_IN_PROCESS=false and scale workers apart. Any number can
 * run: leases and SKIP LOCKED give each job and each expiring case to one worker at a time.
 */
await runWorker({
  name: 'identity-worker',
  loadConfig: () => loadIdentityConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
  createWorker: ({ dependencies, config, log }) =>
    createIdentityWorker({
      db: dependencies.database.db,
      clock: () => new Date(),
      caseTtlSeconds: config.CASE_TTL_SECONDS,
      expirySweepIntervalMs: config.EXPIRY_SWEEP_INTERVAL_MS,
      logger: log,
    }),
});
