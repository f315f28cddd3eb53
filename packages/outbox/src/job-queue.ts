import { currentTraceparent } from '@svc/telemetry';
import type { Job, JobTable } from './job-table.js';
import { createLeasedQueueWorker, type AnyDatabase, type AttemptResult, type QueueWorker, type QueueWorkerSettings, type Transaction } from './leased-queue.js';

export interface EnqueueJob {
  kind: string;
  /** What the job is about, e.g. a case id. */
  subjectId?: string | null;
  /** JSON text. */
  payload: string;
  maxAttempts: number;
  /** Not before this time (default: now). */
  runAt?: Date;
}

/**
 * Writes jobs in the caller's transaction, so the state change that asks for the work and
 * the work itself commit together or not at all. Call the worker's `wake()` after the
 * transaction commits to start without waiting for the next poll.
 */
export async function enqueueJobs(tx: AnyDatabase | Transaction, table: JobTable, jobs: EnqueueJob[], now: Date): Promise<string[]> {
  if (jobs.length === 0) return [];
  const traceparent = currentTraceparent();
  const rows = await (tx as AnyDatabase)
    .insert(table)
    .values(
      jobs.map(({ kind, subjectId, payload, maxAttempts, runAt }) => ({
        kind,
        subjectId: subjectId ?? null,
        payload,
        maxAttempts,
        status: 'pending' as const,
        nextAttemptAt: runAt ?? now,
        createdAt: now,
        traceparent,
      })),
    )
    .returning({ id: table.id });
  return rows.map((row) => row.id);
}

/** Thrown by a handler when retrying cannot help (bad payload, subject gone): the job fails now. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export type JobHandler = (job: Job) => Promise<void>;

export interface JobWorkerOptions extends QueueWorkerSettings {
  db: AnyDatabase;
  table: JobTable;
  /**
   * Handlers by kind. A worker claims only the kinds it has a handler for, so several
   * workers (or services' versions) can share one table, and a kind nobody handles stays
   * pending where queueDepth shows it.
   */
  handlers: Record<string, JobHandler>;
  /** Runs in the transaction that marks a job failed (attempts used up, or PermanentJobError). */
  onGiveUp?: (tx: Transaction, job: Job, error: string) => Promise<void>;
}

export type JobWorker = QueueWorker;

/**
 * Background jobs on the leased queue (leased-queue.ts): a handler that resolves completes
 * the job; one that throws is retried on the schedule until maxAttempts, then the job is
 * failed with its last error kept. At least once: a handler must tolerate running again
 * for the same job (its worker may die after the work but before recording it).
 */
export function createJobWorker(options: JobWorkerOptions): JobWorker {
  const { handlers, onGiveUp, ...settings } = options;
  return createLeasedQueueWorker<Job, AttemptResult, undefined>({
    ...settings,
    label: 'job',
    spanName: (job) => `job ${job.kind}`,
    claimOnly: { column: options.table.kind, values: Object.keys(handlers) },
    async attempt(job) {
      const handler = Object.hasOwn(handlers, job.kind) ? handlers[job.kind] : undefined;
      if (!handler) return { succeeded: false, permanent: true, error: `no handler for job kind ${job.kind}` };
      try {
        await handler(job);
        return { succeeded: true, error: null };
      } catch (error) {
        options.logger?.warn({ err: error, jobId: job.id, kind: job.kind, attempt: job.attemptCount }, 'job attempt failed');
        return { succeeded: false, permanent: error instanceof PermanentJobError, error: error instanceof Error ? error.message : String(error) };
      }
    },
    lostAttempt: (error) => ({ succeeded: false, error }),
    onSettled:
      onGiveUp &&
      (async (tx, job, result, final) => {
        if (final && !result.succeeded) await onGiveUp(tx, job, result.error ?? '');
      }),
  });
}
