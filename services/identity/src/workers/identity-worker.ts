import { MAIL_JOB, type MailTransport } from '@svc/mailer';
import type { TargetPolicy } from '@svc/outbound-http';
import { createJobWorker, queueDepth, wakeOnNotify, type Listen } from '@svc/outbox';
import type { SecretBox, ServiceMetrics } from '@svc/service-kit';
import type { IdentityConfig } from '../config.js';
import { jobs, type IdentityExecutor } from '../db/schema.js';
import { expireDueCases } from '../domain/cases/expire-cases.js';
import { purgeExpiredCeremonies } from '../domain/accounts/second-factors/expired-ceremonies.js';
import type { ChecksProvider } from '../domain/checks/checks-provider.js';
import { createRunChecksHandler, failCaseAfterChecks } from '../domain/checks/run-checks.js';
import type { EvidenceVault } from '../domain/evidence/evidence-vault.js';
import { JOBS_CHANNEL, REDACT_CASE_JOB, RUN_CHECKS_JOB } from '../domain/jobs/job-kinds.js';
import { createRedactCaseHandler } from '../domain/redaction/redact-case.js';
import { retentionBacklog, sweepRetention } from '../domain/redaction/retention-sweep.js';
import { sweepAbandonedUploads } from '../domain/evidence/upload-intents.js';
import type { IdentityMailer } from '../domain/mail/identity-mailer.js';
import { createWebhookDeliveryWorker, type WebhookDeliveryWorkerOptions } from './webhook-delivery-worker.js';

/** Objects one sweep transaction removes at most (it holds their intents' row locks meanwhile). */
const ABANDONED_UPLOADS_BATCH = 50;

export interface IdentityWorkerOptions {
  db: IdentityExecutor;
  storage: EvidenceVault;
  config: Pick<
    IdentityConfig,
    'UNDECIDED_RETENTION_DAYS' | 'EVIDENCE_UPLOAD_GRACE_MS' | 'EVIDENCE_UPLOAD_SWEEP_INTERVAL_MS' | 'RETENTION_SWEEP_INTERVAL_MS' | 'RETENTION_SWEEP_BATCH' | 'AUDIT_RETENTION_DAYS' | 'CASE_TTL_SECONDS' | 'EXPIRY_SWEEP_INTERVAL_MS' | 'JOB_LEASE_MS' | 'CHECKS_RETRY_SCHEDULE_MS' | 'CHECKS_OCR_THRESHOLD' | 'CHECKS_FACE_THRESHOLD' | 'CHECKS_LIVENESS_THRESHOLD' | 'CHECKS_FACE_REJECT_BELOW'> &
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
  /** Sends the queued mails (their own retry schedule on the job table); absent, mails wait for a worker that has it. */
  mail?: { mailer: IdentityMailer; transport: MailTransport; retryScheduleMs: readonly number[] };
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
  /** One batch of mails, for tests. */
  sendMails(): Promise<number>;
  /** One batch of webhook deliveries, for tests. */
  deliverWebhooks(): Promise<number>;
  /** Deletes finished deliveries past DELIVERY_RETENTION_DAYS, for tests. */
  purgeDeliveries(): Promise<number>;
  /** One sweep, for tests and the CLI. */
  sweepExpired(): Promise<number>;
  /** One sweep of expired WebAuthn challenges and pending sign-ins, for tests. */
  sweepCeremonies(): Promise<{ challenges: number; pendingSignIns: number }>;
  /** One sweep of objects whose upload was never recorded, for tests. */
  sweepAbandonedUploads(): Promise<number>;
  /** One retention sweep (cases past retention to redaction, old audit entries deleted), for tests and the CLI. */
  sweepRetention(): Promise<{ requested: number; requeued: number; auditEntriesDeleted: number }>;
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
      [REDACT_CASE_JOB]: createRedactCaseHandler({ db: options.db, vault: options.storage, clock }),
    },
    // The queue's transaction is the service's database under a generic type. A redaction that gives up stays
    // requested (downloads keep answering 410) and is queued again by the next retention sweep.
    onGiveUp: async (tx, job, error) => {
      if (job.kind === RUN_CHECKS_JOB) await failCaseAfterChecks(tx as unknown as IdentityExecutor, job, error, clock());
    },
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
  // Mails share the job table but not the checks' schedule: an SMTP outage of hours is waited out, not given up in seconds.
  if (options.mail) options.metrics?.watchQueue('mail', async () => (await queueDepth(options.db, jobs, { openOnly: true })).filter((row) => row.kind === MAIL_JOB));
  const mailQueue = options.mail
    ? options.mail.mailer.createWorker({
        db: options.db,
        transport: options.mail.transport,
        retryScheduleMs: options.mail.retryScheduleMs,
        jitter: 0.1,
        leaseMs: config.JOB_LEASE_MS,
        clock,
        workerId: 'identity-mail',
        logger: options.logger,
        ...(options.metrics ? { onAttemptRecorded: options.metrics.queueAttemptRecorder('mail') } : {}),
        ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
      })
    : null;
  const mailWorker = mailQueue && options.listen ? wakeOnNotify(mailQueue, options.listen, JOBS_CHANNEL, options.logger) : mailQueue;
  const webhookWorker = createWebhookDeliveryWorker({
    db: options.db,
    box: options.box,
    policy: options.policy,
    config,
    clock,
    ...(options.listen ? { listen: options.listen } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.mail ? { mailer: options.mail.mailer } : {}),
    logger: options.logger,
  });
  const timers = new Set<NodeJS.Timeout>();
  const sweeps = new Set<Promise<unknown>>();
  let running = false;
  const retentionPolicy = () => ({
    now: clock(),
    undecidedRetentionDays: config.UNDECIDED_RETENTION_DAYS,
    auditRetentionDays: config.AUDIT_RETENTION_DAYS,
    batchSize: config.RETENTION_SWEEP_BATCH,
  });
  options.metrics?.watchQueue('retention', async () => {
    const backlog = await retentionBacklog(options.db, retentionPolicy());
    return [
      { kind: 'past-retention', status: 'pending', count: backlog.due, oldestCreatedAt: null },
      { kind: 'redaction', status: 'in_flight', count: backlog.redacting, oldestCreatedAt: null },
    ];
  });

  const sweepExpired = async () => {
    const count = await expireDueCases(options.db, { now: clock(), caseTtlSeconds: config.CASE_TTL_SECONDS });
    if (count > 0) options.logger.info({ expired: count }, 'expired verification cases');
    return count;
  };

  const sweepCeremonies = async () => {
    const purged = await purgeExpiredCeremonies(options.db, clock());
    if (purged.challenges + purged.pendingSignIns > 0) options.logger.info(purged, 'purged expired sign-in ceremonies');
    return purged;
  };

  const sweepRetentionOnce = async () => {
    const result = await sweepRetention(options.db, retentionPolicy());
    if (result.requested + result.requeued + result.auditEntriesDeleted > 0) options.logger.info(result, 'retention sweep');
    return result;
  };

  const sweepUploads = async () => {
    const removed = await sweepAbandonedUploads(options.db, options.storage, { graceMs: config.EVIDENCE_UPLOAD_GRACE_MS, batch: ABANDONED_UPLOADS_BATCH });
    if (removed > 0) options.logger.info({ removed }, 'removed objects of uploads never recorded');
    return removed;
  };

  /** Runs `sweep` now and then every intervalMs after each run ends, until stop(). */
  function schedulePeriodic(name: string, intervalMs: number, sweep: () => Promise<unknown>, delayMs = 0): void {
    if (!running) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = sweep()
        .catch((error: unknown) => options.logger.warn({ err: error }, `${name} failed; retrying at the next interval`))
        .finally(() => {
          sweeps.delete(run);
          schedulePeriodic(name, intervalMs, sweep, intervalMs);
        });
      sweeps.add(run);
    }, delayMs);
    timer.unref();
    timers.add(timer);
  }

  return {
    start() {
      if (running) return;
      running = true;
      jobWorker.start();
      mailWorker?.start();
      webhookWorker.start();
      schedulePeriodic('expiry sweep', config.EXPIRY_SWEEP_INTERVAL_MS, sweepExpired);
      schedulePeriodic('sign-in ceremony sweep', config.EXPIRY_SWEEP_INTERVAL_MS, sweepCeremonies);
      schedulePeriodic('retention sweep', config.RETENTION_SWEEP_INTERVAL_MS, sweepRetentionOnce);
      schedulePeriodic('abandoned upload sweep', config.EVIDENCE_UPLOAD_SWEEP_INTERVAL_MS, sweepUploads);
    },
    async stop() {
      running = false;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all([jobWorker.stop(), mailWorker?.stop(), webhookWorker.close(), ...sweeps]);
      options.mail?.transport.close();
    },
    wake: () => {
      jobWorker.wake();
      mailWorker?.wake();
    },
    sendMails: () => mailWorker?.runOnce() ?? Promise.resolve(0),
    runJobs: () => jobWorker.runOnce(),
    deliverWebhooks: () => webhookWorker.runOnce(),
    purgeDeliveries: () => webhookWorker.purgeFinished(),
    sweepExpired,
    sweepCeremonies,
    sweepRetention: sweepRetentionOnce,
    sweepAbandonedUploads: sweepUploads,
  };
}
