import { createMailTransport, mailSettings } from '@svc/mailer';
import { createSecretBox, runWorker } from '@svc/service-kit';
import { createIdentityMailer } from './domain/mail/identity-mailer.js';
import { configuredChecksProvider } from './domain/checks/configured-provider.js';
import { createEvidenceKeyRing } from './domain/evidence/evidence-keys.js';
import { createEvidenceVault } from './domain/evidence/evidence-vault.js';
import { createEvidenceStorage, evidenceStorageConfig } from './domain/evidence/storage-config.js';
import { identityRuntime } from './service-runtime.js';
import { createIdentityWorker } from './workers/identity-worker.js';

/**
 * The job worker, webhook deliveries and expiry sweep alone (`pnpm --filter @svc/identity worker`), for deployments
 * that run API instances with WORKER_IN_PROCESS=false and scale workers apart. Any number can
 * run: leases and SKIP LOCKED give each job and each expiring case to one worker at a time.
 */
await runWorker({
  ...identityRuntime,
  name: 'identity-worker',
  createWorker: async ({ dependencies, config, log, metrics }) => {
    const checksProvider = await configuredChecksProvider(config);
    const box = createSecretBox(dependencies.secretsKey);
    const worker = createIdentityWorker({
      db: dependencies.database.db,
      storage: createEvidenceVault(await createEvidenceStorage(evidenceStorageConfig(config)), createEvidenceKeyRing(config.EVIDENCE_KEYS, dependencies.secretsKey)),
      config,
      checksProvider,
      box,
      policy: { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
      listen: dependencies.database.listen,
      clock: () => new Date(),
      logger: log,
      metrics,
      mail: {
        mailer: createIdentityMailer(config, box),
        transport: createMailTransport(mailSettings(config, dependencies.dataDir, 'identity'), { logger: log }),
        retryScheduleMs: config.MAIL_RETRY_SCHEDULE_MS,
      },
    });
    return {
      start: () => {
        // The on-CPU models load now, as the API's do when it listens, not on the first live case:
        // that case does not wait for them, and the worker's memory takes its step at start.
        void checksProvider?.warm?.().catch((error: unknown) => log.warn({ err: error }, 'loading the on-CPU checks models at start failed'));
        return worker.start();
      },
      async stop() {
        await worker.stop();
        await checksProvider?.close();
      },
    };
  },
});
