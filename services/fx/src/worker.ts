import { createSecretBox, runWorker } from '@svc/service-kit';
import { loadFxConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';
import { createAlertDeliveryWorker } from './domain/alerts/alert-delivery.js';

/**
 * The rate-alert delivery worker alone (`pnpm --filter @svc/fx worker`), for deployments that
 * run API instances with ALERT_WORKER_IN_PROCESS=false and scale workers apart. Any number can
 * run: FOR UPDATE SKIP LOCKED leases give each delivery to one worker at a time.
 */
await runWorker({
  name: 'fx-worker',
  loadConfig: () => loadFxConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
  createWorker: ({ dependencies, config, log, metrics }) => {
    const worker = createAlertDeliveryWorker({
      db: dependencies.database.db,
      box: createSecretBox(dependencies.secretsKey),
      policy: { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
      retryScheduleMs: config.ALERT_RETRY_SCHEDULE_MS,
      timeoutMs: config.ALERT_DELIVERY_TIMEOUT_MS,
      leaseMs: config.DELIVERY_LEASE_MS,
      retentionDays: config.DELIVERY_RETENTION_DAYS,
      listen: dependencies.database.listen,
      logger: log,
      metrics,
    });
    return { start: () => worker.start(), stop: () => worker.close() };
  },
});
