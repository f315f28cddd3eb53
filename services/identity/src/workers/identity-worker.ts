import { createJobWorker, type Job } from '@svc/outbox';
import type { IdentityExecutor } from '../db/schema.js';
import { jobs } from '../db/schema.js';
import { expireDueCases } from '../domain/cases/expire-cases.js';

export interface IdentityWorkerOptions {
  db: IdentityExecutor;
  clock: () => Date;
  caseTtlSeconds: number;
  expirySweepIntervalMs: number;
  /** Job handlers by kind; a kind without one stays queued (run-checks until the checks provider lands). */
  handlers?: Record<string, (job: Job) => Promise<void>>;
  pollIntervalMs?: number;
  logger: { info(object: object, message: string): void; warn(object: object, message: string): void; error(object: object, message: string): void };
}

export interface IdentityWorker {
  start(): void;
  stop(): Promise<void>;
  /** Claim new jobs now (after a commit that enqueued some). */
  wake(): void;
  /** One sweep, for tests and the CLI. */
  sweepExpired(): Promise<number>;
}

/**
 * The background side of identity: the leased job queue and the expiry sweep. Runs inside the
 * API process by default and alone in `pnpm --filter @svc/identity worker`; any number of
 * either may run (leases and SKIP LOCKED keep them off each other's rows).
 */
export function createIdentityWorker(options: IdentityWorkerOptions): IdentityWorker {
  const jobWorker = createJobWorker({
    db: options.db,
    table: jobs,
    handlers: options.handlers ?? {},
    retryScheduleMs: [0, 1000, 5000, 30_000, 120_000],
    clock: options.clock,
    workerId: 'identity-jobs',
    logger: options.logger,
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
  });
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();
  let running = false;

  const sweepExpired = async () => {
    const count = await expireDueCases(options.db, { now: options.clock(), caseTtlSeconds: options.caseTtlSeconds });
    if (count > 0) options.logger.info({ expired: count }, 'expired verification cases');
    return count;
  };

  function scheduleSweep(delayMs: number): void {
    if (!running) return;
    sweepTimer = setTimeout(() => {
      sweeping = sweepExpired()
        .catch((error: unknown) => options.logger.warn({ err: error }, 'expiry sweep failed; retrying at the next interval'))
        .finally(() => scheduleSweep(options.expirySweepIntervalMs));
    }, delayMs);
    sweepTimer.unref();
  }

  return {
    start() {
      if (running) return;
      running = true;
      jobWorker.start();
      scheduleSweep(0);
    },
    async stop() {
      running = false;
      clearTimeout(sweepTimer);
      await Promise.all([jobWorker.stop(), sweeping]);
    },
    wake: () => jobWorker.wake(),
    sweepExpired,
  };
}
