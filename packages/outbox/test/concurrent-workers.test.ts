import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { expect, it } from 'vitest';
import { createDeliveryWorker, createJobWorker, enqueueDeliveries, enqueueJobs, type Job } from '../src/index.js';
import { deliveries, jobs } from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';
import { describeNeeding } from '@svc/db/testing';

// Locking only means something on a real PostgreSQL: PGlite is one connection, nothing ever waits.
describeNeeding('DATABASE_URL')('concurrent workers on PostgreSQL', () => {
  it('deliver every event exactly once when they race over the same queue', async () => {
    const testDatabase = await createQueueTestDatabase();
    const clients = [postgres(testDatabase.url!, { max: 2 }), postgres(testDatabase.url!, { max: 2 }), postgres(testDatabase.url!, { max: 2 })];
    try {
      const now = new Date();
      await testDatabase.database.db.transaction((tx) =>
        enqueueDeliveries(
          tx,
          deliveries,
          Array.from({ length: 60 }, (_, i) => ({ topic: 't', subscriptionId: '00000000-0000-4000-8000-000000000002', payload: String(i), maxAttempts: 1 })),
          now,
        ),
      );
      const delivered: string[] = [];
      const workers = clients.map((client) =>
        createDeliveryWorker({
          db: drizzle(client),
          table: deliveries,
          retryScheduleMs: [0],
          batchSize: 7,
          deliver: async (delivery) => {
            delivered.push(delivery.payload);
            await new Promise((resolve) => setTimeout(resolve, 5));
            return { status: 200 };
          },
        }),
      );
      // Every worker keeps claiming until the queue is empty.
      await Promise.all(workers.map(async (worker) => {
        while ((await worker.runOnce()) > 0);
      }));
      expect(delivered).toHaveLength(60);
      expect(new Set(delivered).size).toBe(60);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
      await testDatabase.cleanup();
    }
  });

  it('run every job exactly once when they race over the same queue, each worker taking only its kinds', async () => {
    const testDatabase = await createQueueTestDatabase();
    const clients = [postgres(testDatabase.url!, { max: 2 }), postgres(testDatabase.url!, { max: 2 }), postgres(testDatabase.url!, { max: 2 })];
    try {
      await testDatabase.database.db.transaction((tx) =>
        enqueueJobs(
          tx,
          jobs,
          Array.from({ length: 60 }, (_, i) => ({ kind: i % 3 === 0 ? 'export-report' : 'run-checks', payload: String(i), maxAttempts: 1 })),
          new Date(),
        ),
      );
      const ran: { worker: number; job: Job }[] = [];
      const handler = (worker: number) => async (job: Job) => {
        ran.push({ worker, job });
        await new Promise((resolve) => setTimeout(resolve, 5));
      };
      const workers = clients.map((client, worker) =>
        createJobWorker({
          db: drizzle(client),
          table: jobs,
          retryScheduleMs: [0],
          batchSize: 7,
          // The third worker has no export-report handler and must never claim one.
          handlers: worker === 2 ? { 'run-checks': handler(worker) } : { 'run-checks': handler(worker), 'export-report': handler(worker) },
        }),
      );
      await Promise.all(workers.map(async (worker) => {
        while ((await worker.runOnce()) > 0);
      }));
      expect(ran).toHaveLength(60);
      expect(new Set(ran.map(({ job }) => job.payload)).size).toBe(60);
      expect(ran.filter(({ worker, job }) => worker === 2 && job.kind === 'export-report')).toEqual([]);
      const statuses = await testDatabase.database.db.select({ status: jobs.status, attemptCount: jobs.attemptCount }).from(jobs);
      expect(statuses.every(({ status, attemptCount }) => status === 'succeeded' && attemptCount === 1)).toBe(true);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
      await testDatabase.cleanup();
    }
  });

  it('take a job over from a worker that claimed it and died, once its lease expires', async () => {
    const testDatabase = await createQueueTestDatabase();
    const dyingClient = postgres(testDatabase.url!, { max: 1 });
    const rescuerClient = postgres(testDatabase.url!, { max: 1 });
    try {
      const claimedAt = new Date();
      const [id] = await testDatabase.database.db.transaction((tx) => enqueueJobs(tx, jobs, [{ kind: 'run-checks', payload: '{}', maxAttempts: 3 }], claimedAt));
      const leaseMs = 30_000;

      let claimed: () => void = () => undefined;
      const claimedSignal = new Promise<void>((resolve) => (claimed = resolve));
      const dying = createJobWorker({
        db: drizzle(dyingClient),
        table: jobs,
        retryScheduleMs: [0],
        leaseMs,
        clock: () => claimedAt,
        handlers: {
          // Claims, then never finishes: the process died mid-job.
          'run-checks': () => {
            claimed();
            return new Promise<void>(() => undefined);
          },
        },
      });
      void dying.runOnce();
      await claimedSignal;
      await dyingClient.end(); // its connection goes with it

      let rescuerNow = new Date(claimedAt.getTime() + leaseMs - 1);
      const rescued: Job[] = [];
      const rescuer = createJobWorker({
        db: drizzle(rescuerClient),
        table: jobs,
        retryScheduleMs: [0],
        leaseMs,
        clock: () => rescuerNow,
        handlers: { 'run-checks': async (job) => void rescued.push(job) },
      });
      expect(await rescuer.runOnce()).toBe(0); // the lease still holds
      rescuerNow = new Date(claimedAt.getTime() + leaseMs);
      expect(await rescuer.runOnce()).toBe(1);
      expect(rescued.map((job) => job.attemptCount)).toEqual([2]);
      const [row] = await testDatabase.database.db.select().from(jobs).where(eq(jobs.id, id!));
      expect(row).toMatchObject({ status: 'succeeded', attemptCount: 2, leaseExpiresAt: null, completedAt: rescuerNow });
    } finally {
      await Promise.all([dyingClient.end(), rescuerClient.end()]);
      await testDatabase.cleanup();
    }
  });
});
