import { createSecretBox, createServiceDependencies } from '@svc/service-kit';
import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { loadFxConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';
import { createAlertDeliveryWorker } from './domain/alerts/alert-delivery.js';

/**
 * The rate-alert delivery worker alone (`pnpm --filter @svc/fx worker`), for deployments that
 * run API instances with ALERT_WORKER_IN_PROCESS=false and scale workers apart. Any number can
 * run: FOR UPDATE SKIP LOCKED leases give each delivery to one worker at a time.
 */
const config = loadFxConfig(process.env);
const log = pino({ level: config.LOG_LEVEL, base: { service: 'fx-worker' } });
const dependencies = await createServiceDependencies({ config, schemaName, migrationsFolder, schema: databaseSchema });
const worker = createAlertDeliveryWorker({
  db: dependencies.database.db,
  box: createSecretBox(dependencies.secretsKey),
  policy: { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
  retryScheduleMs: config.ALERT_RETRY_SCHEDULE_MS,
  timeoutMs: config.ALERT_DELIVERY_TIMEOUT_MS,
  logger: log,
});
worker.start();
log.info({ database: dependencies.database.driver }, 'fx alert delivery worker started');
closeWithGrace({ delay: 15_000 }, async ({ signal }) => {
  log.info({ signal }, 'stopping: finishing deliveries in flight');
  await worker.close();
  await dependencies.close();
});
