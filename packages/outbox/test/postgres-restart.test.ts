import { selectRows } from '@svc/db';
import { startPrivatePostgres, type PrivatePostgres, type TestDatabase } from '@svc/db/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobWorker, enqueueJobs, type JobWorker } from '../src/index.js';
import { jobs } from './fixtures/schema.js';
import type * as schema from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

/**
 * Workers that live through PostgreSQL restarts under load: every job enqueued before, between and
 * after three restarts is run and recorded within a few leases of the last one. A pool connection
 * the restart left inside a transaction its client had lost track of used to take every later
 * claim and settle into that transaction, never committed: the queue stood still, its leases
 * renewed, until the process restarted.
 */
const LEASE_MS = 3000;
let server: PrivatePostgres;
let testDatabase: TestDatabase<typeof schema>;

beforeAll(async () => {
  server = await startPrivatePostgres();
  // The server ends a session idle in a transaction after 2 s here (60 s in the services), so a lost one costs this test little.
  testDatabase = await createQueueTestDatabase({ databaseUrl: server.url, idleInTransactionTimeoutMs: 2000 });
}, 120_000);
afterAll(async () => {
  await testDatabase?.cleanup();
  await server?.destroy();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await condition()) return;
    } catch {
      // The server is away: ask again.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(50);
  }
}

describe('leased queue across PostgreSQL restarts', () => {
  it('runs every job enqueued around three restarts, and leaves no lease unreclaimed', async () => {
    const db = testDatabase.database.db;
    let ran = 0;
    const workers: JobWorker[] = [0, 1].map((index) =>
      createJobWorker({
        db,
        table: jobs,
        retryScheduleMs: [100],
        leaseMs: LEASE_MS,
        pollIntervalMs: 50,
        batchSize: 10,
        concurrency: 20,
        workerId: `worker-${index}`,
        handlers: {
          'run-checks': async () => {
            ran += 1;
            // One attempt in 25 outlasts a third of the lease, so renewals are in flight when the server goes.
            await pause(ran % 25 === 0 ? LEASE_MS / 2 : 2);
          },
        },
        // Outcomes are then recorded in transactions, as the delivery queue records its own.
        onGiveUp: async () => undefined,
      }),
    );
    for (const worker of workers) worker.start();
    let enqueued = 0;
    let failedEnqueues = 0;
    let producing = true;
    const producer = (async () => {
      while (producing) {
        try {
          await db.transaction((tx) => enqueueJobs(tx, jobs, Array.from({ length: 5 }, () => ({ kind: 'run-checks', payload: '{}', maxAttempts: 50 })), new Date()));
          enqueued += 5;
          for (const worker of workers) worker.wake();
        } catch {
          failedEnqueues += 1;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const openJobs = async () => {
      const [row] = await selectRows<{ open: number }>(db, sql`select count(*)::int as open from ${jobs} where status in ('pending', 'in_flight')`);
      return row?.open ?? -1;
    };
    for (let restart = 0; restart < 3; restart += 1) {
      const before = ran;
      await until(async () => ran >= before + 100, 'work before the restart', 60_000);
      await server.stop();
      // Away until the producer has seen it fail, as a service's requests would.
      const failedBefore = failedEnqueues;
      await until(async () => failedEnqueues > failedBefore, 'an enqueue failing while the server is away', 30_000);
      await server.start();
    }
    const afterRestarts = ran;
    await until(async () => ran >= afterRestarts + 100, 'work after the restarts', 60_000);
    producing = false;
    await producer;
    // Every job, including those whose outcomes the restarts cut off, is recorded within a few leases.
    await until(async () => (await openJobs()) === 0, 'every job recorded', 6 * LEASE_MS);
    await Promise.all(workers.map((worker) => worker.stop()));
    const [{ succeeded } = { succeeded: -1 }] = await selectRows<{ succeeded: number }>(db, sql`select count(*)::int as succeeded from ${jobs} where status = 'succeeded'`);
    expect(failedEnqueues).toBeGreaterThanOrEqual(3);
    expect(succeeded).toBe(enqueued);
  }, 240_000);
});
