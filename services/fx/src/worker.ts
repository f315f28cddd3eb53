import { runWorker } from '@svc/service-kit';
import { fxRuntime } from './service-runtime.js';
import { alertDeliveryWorkerFor } from './workers/alert-delivery-worker.js';

/**
 * The rate-alert delivery worker alone (`pnpm --filter @svc/fx worker`), for deployments that
 * run API instances with ALERT_WORKER_IN_PROCESS=false and scale workers apart. Any number can
 * run: FOR UPDATE SKIP LOCKED leases give each delivery to one worker at a time.
 */
await runWorker({
  ...fxRuntime,
  name: 'fx-worker',
  createWorker: ({ dependencies, config, log, metrics }) => {
    const worker = alertDeliveryWorkerFor(config, { database: dependencies.database, secretsKey: dependencies.secretsKey, logger: log, metrics });
    return { start: () => worker.start(), stop: () => worker.close() };
  },
});
