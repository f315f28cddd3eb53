import type { TargetPolicy } from '@svc/outbound-http';
import { createJobWorker, queueDepth, wakeOnNotify, type Listen } from '@svc/outbox';
import type { SecretBox, ServiceMetrics } from '@svc/service-kit';
import type { IdentityConfig } from '../config.js';
import { jobs, type IdentityExecutor } from '../db/schema.js';
import { expireDueCases } from '../domain/cases/expire-cases.js';
import type { ChecksProvider } from '../domain/checks/checks-provider.js';
import { createRunChecksHandler, failCaseAfterChecks } from '../domain/checks/run-checks.js';
import type { EvidenceVault } from '../domain/evidence/evidence-vault.js';
import { JOBS_CHANNEL, RUN_CHECKS_JOB } from '../domain/jobs/job-kinds.js';
import { createWebhookDeliveryWorker, type WebhookDeliveryWorkerOptions } from './webhook-delivery-worker.js';

export interface IdentityWorkerOptions {
  db: IdentityExecutor;
  storage: EvidenceVault;
  config: Pick<IdentityConfig, 'CASE_TTL_SECONDS' | 'EXPIRY_SWEEP_INTERVAL_MS' | 'JOB_LEASE_MS' | 'CHECKS_RETRY_SCHEDULE_MS' | 'CHECKS_OCR_THRESHOLD' | 'CHECKS_FACE_THRESHOLD' | 'CHECKS_LIVENESS_THRESHOLD' | 'CHECKS_FACE_REJECT_BELOW'> &
    WebhookDeliveryWorkerOptions['config'];
  /** Opens webhook signing secrets. */
  box: SecretBox;
  policy: TargetPolicy;
  /** The database's LISTEN: work committed by any process wakes the workers at once. */
  listen?: Listen;
  /** The live tenants' checks provider; null: their cases go to manual review. */
  checksProvider: ChecksProvider | null;
  clock: () => Date;
  pollIntervalMs?: number;
  logger: { info(object: object, message: string): void; warn(object: object, message: string): void; error(object: object, message: string): void };
  /** Where both queues' depth (read at scrape time) and attempts by outcome are reported. */
  metrics?: Pick<ServiceMetrics, 'watchQueue' | 'queueAttemptRecorder'>;
}

export interface IdentityWorker {
  start(): void;
  stop(): Promise<void>;
  /** Claim new jobs now (after a commit that enqueued some). */
  wake(): void;
  /** One batch of jobs, for tests and the CLI. */
  runJobs(): Promise<number>;
  /** One batch of webhook deliveries, for tests. */
  deliverWebhooks(): Promise<number>;
  /** Deletes finished deliveries past DELIVERY_RETENTION_DAYS, for tests. */
  purgeDeliveries(): Promise<number>;
  /** One sweep, for tests and the CLI. */
  sweepExpired(): Promise<number>;
}

/**
 * The background side of identity: the leased job queue (automated checks), webhook
 * deliveries and the expiry sweep. Runs inside the API process by default and alone in `pnpm --filter @svc/identity
 * worker`; any number of either may run (leases and SKIP LOCKED keep them off each other's rows).
 */
export function createIdentityWorker(options: IdentityWorkerOptions): IdentityWorker {
  const { config, clock } = options;
  // Depth is the table's, whichever process works it: reported even when the worker runs elsewhere.
  options.metrics?.watchQueue('jobs', () => queueDepth(options.db, jobs, { openOnly: true }));
  const jobQueue = createJobWorker({
    db: options.db,
    table: jobs,
    handlers: {
      [RUN_CHECKS_JOB]: createRunChecksHandler({
        db: options.db,
        storage: options.storage,
        provider: options.checksProvider,
        thresholds: { ocrConfidence: config.CHECKS_OCR_THRESHOLD, faceSimilarity: config.CHECKS_FACE_THRESHOLD, liveness: config.CHECKS_LIVENESS_THRESHOLD, faceRejectBelow: config.CHECKS_FACE_REJECT_BELOW },
        clock,
      }),
    },
    // The queue's transaction is the service's database under a generic type.
    onGiveUp: (tx, job, error) => failCaseAfterChecks(tx as unknown as IdentityExecutor, job, error, clock()),
    retryScheduleMs: config.CHECKS_RETRY_SCHEDULE_MS,
    leaseMs: config.JOB_LEASE_MS,
    clock,
    workerId: 'identity-jobs',
    logger: options.logger,
    ...(options.metrics ? { onAttemptRecorded: options.metrics.queueAttemptRecorder('jobs') } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
  });
  // Submissions committed by any API instance wake the job workers at once (the poll is the fallback).
  const jobWorker = options.listen ? wakeOnNotify(jobQueue, options.listen, JOBS_CHANNEL, options.logger) : jobQueue;
  const webhookWorker = createWebhookDeliveryWorker({
    db: options.db,
    box: options.box,
    policy: options.policy,
    config,
    clock,
    ...(options.listen ? { listen: options.listen } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    logger: options.logger,
  });
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();
  let running = false;

  const sweepExpired = async () => {
    const count = await expireDueCases(options.db, { now: clock(), caseTtlSeconds: config.CASE_TTL_SECONDS });
    if (count > 0) options.logger.info({ expired: count }, 'expired verification cases');
    return count;
  };

  function scheduleSweep(delayMs: number): void {
    if (!running) return;
    sweepTimer = setTimeout(() => {
      sweeping = sweepExpired()
        .catch((error: unknown) => options.logger.warn({ err: error }, 'expiry sweep failed; retrying at the next interval'))
        .finally(() => scheduleSweep(config.EXPIRY_SWEEP_INTERVAL_MS));
    }, delayMs);
    sweepTimer.unref();
  }

  return {
    start() {
      if (running) return;
      running = true;
      jobWorker.start();
      webhookWorker.start();
      scheduleSweep(0);
    },
    async stop() {
      running = false;
      clearTimeout(sweepTimer);
      await Promise.all([jobWorker.stop(), webhookWorker.close(), sweeping]);
    },
    wake: () => jobWorker.wake(),
    runJobs: () => jobWorker.runOnce(),
    deliverWebhooks: () => webhookWorker.runOnce(),
    purgeDeliveries: () => webhookWorker.purgeFinished(),
    sweepExpired,
  };
}
