import type { TestDatabase } from '@svc/db/testing';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createJobWorker, enqueueDeliveries, enqueueJobs, PermanentJobError, queueDepth, type EnqueueJob, type Job, type JobWorkerOptions } from '../src/index.js';
import { deliveries, jobs } from './fixtures/schema.js';
import type * as schema from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

const CASE_ID = '00000000-0000-4000-8000-00000000000c';
let testDatabase: TestDatabase<typeof schema>;
let now: Date;
const clock = () => now;

beforeEach(async () => {
  testDatabase = await createQueueTestDatabase();
  now = new Date('2026-11-23T10:00:00.000Z');
});
afterEach(async () => {
  await testDatabase.cleanup();
});

function db() {
  return testDatabase.database.db;
}

async function enqueue(...jobsToEnqueue: Partial<EnqueueJob>[]): Promise<string[]> {
  return db().transaction((tx) =>
    enqueueJobs(
      tx,
      jobs,
      jobsToEnqueue.map((job) => ({ kind: 'run-checks', subjectId: CASE_ID, payload: '{}', maxAttempts: 3, ...job })),
      now,
    ),
  );
}

function worker(options: Partial<JobWorkerOptions> & Pick<JobWorkerOptions, 'handlers'>) {
  return createJobWorker({ db: db(), table: jobs, clock, retryScheduleMs: [0, 5000, 30000], ...options });
}

async function row(id: string): Promise<Job> {
  const [found] = await db().select().from(jobs).where(eq(jobs.id, id));
  if (!found) throw new Error('missing row');
  return found;
}

describe('job queue', () => {
  it('runs an enqueued job once and records success', async () => {
    const [id] = await enqueue({ payload: '{"caseId":"c"}' });
    const ran: Job[] = [];
    const jobWorker = worker({ handlers: { 'run-checks': async (job) => void ran.push(job) } });
    expect(await jobWorker.runOnce()).toBe(1);
    expect(await jobWorker.runOnce()).toBe(0);
    expect(ran.map(({ kind, subjectId, payload, attemptCount }) => ({ kind, subjectId, payload, attemptCount }))).toEqual([
      { kind: 'run-checks', subjectId: CASE_ID, payload: '{"caseId":"c"}', attemptCount: 1 },
    ]);
    expect(await row(id!)).toMatchObject({ status: 'succeeded', attemptCount: 1, completedAt: now, lastAttemptAt: now, leaseExpiresAt: null, lastError: null });
  });

  it('reports each recorded outcome: succeeded, retrying, then gave_up once attempts are used up', async () => {
    await enqueue({ kind: 'ok' }, { kind: 'flaky', maxAttempts: 2 });
    const outcomes: string[] = [];
    const jobWorker = worker({
      handlers: { ok: async () => undefined, flaky: () => Promise.reject(new Error('provider down')) },
      retryScheduleMs: [0],
      onAttemptRecorded: (outcome) => outcomes.push(outcome),
    });
    expect(await jobWorker.runOnce()).toBe(2);
    expect(outcomes.sort()).toEqual(['retrying', 'succeeded']);
    expect(await jobWorker.runOnce()).toBe(1);
    expect(outcomes).toEqual(['retrying', 'succeeded', 'gave_up']);
  });

  it('waits for runAt, and keeps a subject-less job', async () => {
    const [id] = await enqueue({ subjectId: null, runAt: new Date('2026-11-23T10:01:00.000Z') });
    const jobWorker = worker({ handlers: { 'run-checks': async () => undefined } });
    expect(await jobWorker.runOnce()).toBe(0);
    now = new Date('2026-11-23T10:01:00.000Z');
    expect(await jobWorker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'succeeded', subjectId: null });
  });

  it('does not run jobs whose transaction rolled back', async () => {
    await expect(
      db().transaction(async (tx) => {
        await enqueueJobs(tx, jobs, [{ kind: 'run-checks', payload: '{}', maxAttempts: 3 }], now);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(await worker({ handlers: { 'run-checks': async () => undefined } }).runOnce()).toBe(0);
  });

  it('retries a throwing handler on the schedule until it succeeds', async () => {
    const [id] = await enqueue({ maxAttempts: 3 });
    const failures = [new Error('checks provider unavailable')];
    const jobWorker = worker({
      handlers: {
        'run-checks': async () => {
          const failure = failures.shift();
          if (failure) throw failure;
        },
      },
    });
    expect(await jobWorker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({
      status: 'pending',
      attemptCount: 1,
      lastError: 'checks provider unavailable',
      nextAttemptAt: new Date('2026-11-23T10:00:05.000Z'),
      completedAt: null,
    });
    now = new Date('2026-11-23T10:00:04.999Z');
    expect(await jobWorker.runOnce()).toBe(0);
    now = new Date('2026-11-23T10:00:05.000Z');
    expect(await jobWorker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'succeeded', attemptCount: 2, lastError: null, completedAt: now });
  });

  it('gives up after maxAttempts, keeping the last error, and runs onGiveUp in the same transaction', async () => {
    const [id] = await enqueue({ maxAttempts: 2 });
    const gaveUp: { job: Job; error: string }[] = [];
    let attempt = 0;
    const jobWorker = worker({
      handlers: {
        'run-checks': async () => {
          attempt += 1;
          throw new Error(`failure ${attempt}`);
        },
      },
      onGiveUp: async (tx, job, error) => {
        gaveUp.push({ job, error });
        // Written with the failure, e.g. the case moving to manual review.
        await enqueueJobs(tx, jobs, [{ kind: 'notify-reviewer', subjectId: job.subjectId, payload: '{}', maxAttempts: 1 }], now);
      },
    });
    expect(await jobWorker.runOnce()).toBe(1);
    expect(gaveUp).toEqual([]);
    now = new Date('2026-11-23T10:00:05.000Z');
    expect(await jobWorker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'failed', attemptCount: 2, lastError: 'failure 2', completedAt: now });
    expect(gaveUp.map(({ job, error }) => ({ id: job.id, error }))).toEqual([{ id, error: 'failure 2' }]);
    expect(await db().select({ kind: jobs.kind, subjectId: jobs.subjectId }).from(jobs).where(eq(jobs.kind, 'notify-reviewer'))).toEqual([
      { kind: 'notify-reviewer', subjectId: CASE_ID },
    ]);
    now = new Date('2026-11-23T11:00:00.000Z');
    expect(await jobWorker.runOnce()).toBe(0);
  });

  it('records neither the failure nor onGiveUp writes when onGiveUp throws; once the lease runs out the job is failed again, not rerun', async () => {
    const [id] = await enqueue({ maxAttempts: 1 });
    let handlerRuns = 0;
    const giveUpErrors: string[] = [];
    const jobWorker = worker({
      leaseMs: 60_000,
      handlers: {
        'run-checks': async () => {
          handlerRuns += 1;
          throw new Error('provider down');
        },
      },
      onGiveUp: async (tx, job, error) => {
        giveUpErrors.push(error);
        await enqueueJobs(tx, jobs, [{ kind: 'notify-reviewer', subjectId: job.subjectId, payload: '{}', maxAttempts: 1 }], now);
        if (giveUpErrors.length === 1) throw new Error('bookkeeping failed');
      },
    });
    expect(await jobWorker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'in_flight', attemptCount: 1, lastError: null });
    expect(await db().select().from(jobs).where(eq(jobs.kind, 'notify-reviewer'))).toEqual([]);

    now = new Date(now.getTime() + 60_000);
    expect(await jobWorker.runOnce()).toBe(1);
    expect(handlerRuns).toBe(1);
    expect(giveUpErrors).toEqual(['provider down', 'lease expired during the last attempt: its worker is presumed dead']);
    expect(await row(id!)).toMatchObject({ status: 'failed', attemptCount: 2, lastError: 'lease expired during the last attempt: its worker is presumed dead' });
    expect(await db().select().from(jobs).where(eq(jobs.kind, 'notify-reviewer'))).toHaveLength(1);
  });

  it('takes over a job whose worker died once its lease expires, ignores the dead worker late result, and fails it if that was its last attempt', async () => {
    const [retriedId, lastChanceId] = await enqueue({ maxAttempts: 2, payload: 'retried' }, { maxAttempts: 1, payload: 'last chance' });
    const releases: (() => void)[] = [];
    const stuck = worker({ leaseMs: 60_000, handlers: { 'run-checks': () => new Promise<void>((resolve) => releases.push(resolve)) } });
    const stuckRun = stuck.runOnce();
    await vi.waitFor(() => expect(releases).toHaveLength(2));

    const rescued: string[] = [];
    const gaveUp: string[] = [];
    const rescuer = worker({
      leaseMs: 60_000,
      handlers: { 'run-checks': async (job) => void rescued.push(job.payload) },
      onGiveUp: async (_tx, job) => void gaveUp.push(job.payload),
    });
    expect(await rescuer.runOnce()).toBe(0); // leases still held
    now = new Date(now.getTime() + 60_000);
    expect(await rescuer.runOnce()).toBe(2);
    expect(rescued).toEqual(['retried']);
    expect(gaveUp).toEqual(['last chance']);
    expect(await row(retriedId!)).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(await row(lastChanceId!)).toMatchObject({ status: 'failed', attemptCount: 2, lastError: 'lease expired during the last attempt: its worker is presumed dead' });

    releases.forEach((release) => release()); // the first worker wakes up late
    await stuckRun;
    expect(await row(retriedId!)).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(await row(lastChanceId!)).toMatchObject({ status: 'failed', attemptCount: 2 });
  });

  it('fails a job at once on PermanentJobError, whatever attempts remain', async () => {
    const [id] = await enqueue({ maxAttempts: 5 });
    const gaveUp: string[] = [];
    const jobWorker = worker({
      handlers: {
        'run-checks': async () => {
          throw new PermanentJobError('case was deleted');
        },
      },
      onGiveUp: async (_tx, _job, error) => void gaveUp.push(error),
    });
    expect(await jobWorker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'failed', attemptCount: 1, lastError: 'case was deleted', completedAt: now });
    expect(gaveUp).toEqual(['case was deleted']);
  });

  it('claims only kinds it has a handler for; with no handlers it claims nothing', async () => {
    const [checksId, exportId] = await enqueue({ kind: 'run-checks' }, { kind: 'export-report' });
    expect(await worker({ handlers: {} }).runOnce()).toBe(0);
    const ran: string[] = [];
    expect(await worker({ handlers: { 'run-checks': async (job) => void ran.push(job.kind) } }).runOnce()).toBe(1);
    expect(ran).toEqual(['run-checks']);
    expect(await row(checksId!)).toMatchObject({ status: 'succeeded' });
    expect(await row(exportId!)).toMatchObject({ status: 'pending', attemptCount: 0, lastAttemptAt: null });
  });

  it('reports queue depth by kind and status, succeeded rows left out, for jobs and deliveries', async () => {
    await enqueue({ kind: 'run-checks', maxAttempts: 1 }, { kind: 'run-checks', maxAttempts: 1 }, { kind: 'run-checks', maxAttempts: 1 });
    const created = now;
    now = new Date('2026-11-23T10:00:10.000Z');
    await enqueue({ kind: 'export-report' }, { kind: 'run-checks', runAt: new Date('2026-11-24T00:00:00.000Z') });
    const outcomes = ['ok', 'fail'];
    await worker({
      batchSize: 2,
      handlers: {
        'run-checks': async () => {
          if (outcomes.shift() === 'fail') throw new Error('no');
        },
      },
    }).runOnce();

    expect(await queueDepth(db(), jobs)).toEqual([
      { kind: 'export-report', status: 'pending', count: 1, oldestCreatedAt: now },
      { kind: 'run-checks', status: 'failed', count: 1, oldestCreatedAt: created },
      { kind: 'run-checks', status: 'pending', count: 2, oldestCreatedAt: created },
    ]);
    expect(await queueDepth(db(), jobs, { openOnly: true })).toEqual([
      { kind: 'export-report', status: 'pending', count: 1, oldestCreatedAt: now },
      { kind: 'run-checks', status: 'pending', count: 2, oldestCreatedAt: created },
    ]);

    await db().transaction((tx) =>
      enqueueDeliveries(tx, deliveries, [{ topic: 'verification.approved', subscriptionId: CASE_ID, payload: '{}', maxAttempts: 3 }], now),
    );
    expect(await queueDepth(db(), deliveries)).toEqual([{ kind: 'verification.approved', status: 'pending', count: 1, oldestCreatedAt: now }]);
  });
});
