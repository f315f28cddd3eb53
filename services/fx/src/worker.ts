import { runWorker } from '@svc/service-kit';
import { fxRuntime } from './service-runtime.js';
import { createSecretBox } from '@svc/service-kit';
import { createFxMailer } from './domain/mail/fx-mailer.js';
import { alertDeliveryWorkerFor } from './workers/alert-delivery-worker.js';
import { fxMailTransport, fxMailWorkerFor } from './workers/mail-worker.js';

/**
 * The rate-alert delivery and mail workers alone (`pnpm --filter @svc/fx worker`), for deployments that
 * run API instances with ALERT_WORKER_IN_PROCESS=false and scale workers apart. Any number can
 * run: FOR UPDATE SKIP LOCKED leases give each delivery to one worker at a time.
 */
await runWorker({
  ...fxRuntime,
  name: 'fx-worker',
  createWorker: ({ dependencies, config, log, metrics }) => {
    const mailer = createFxMailer(config, createSecretBox(dependencies.secretsKey));
    const transport = fxMailTransport(config, log);
    const worker = alertDeliveryWorkerFor(config, { database: dependencies.database, secretsKey: dependencies.secretsKey, logger: log, metrics, mailer });
    const mailWorker = fxMailWorkerFor(config, { db: dependencies.database.db, mailer, transport, listen: dependencies.database.listen, logger: log, metrics });
    return {
      start: () => {
        worker.start();
        mailWorker.start();
      },
      stop: async () => {
        await worker.close();
        await mailWorker.stop();
        transport.close();
      },
    };
  },
});
