import type { TestDatabase } from '@svc/db/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeliveryWorker, enqueueDeliveries, type AttemptOutcome } from '../src/index.js';
import { deliveries } from './fixtures/schema.js';
import type * as schema from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

const SLOW = '00000000-0000-4000-8000-00000000000a';
const FAST = '00000000-0000-4000-8000-00000000000b';
let testDatabase: TestDatabase<typeof schema>;

beforeEach(async () => {
  testDatabase = await createQueueTestDatabase();
});
afterEach(async () => {
  await testDatabase.cleanup();
});

describe('per-subscription fairness', () => {
  it("keeps one subscription's backlog to its share of the slots, so another subscription's deliveries go out meanwhile", async () => {
    const db = testDatabase.database.db;
    const enqueue = (subscriptionId: string, count: number, at: Date) =>
      db.transaction((tx) => enqueueDeliveries(tx, deliveries, Array.from({ length: count }, (_, i) => ({ topic: 't', subscriptionId, payload: `${subscriptionId}-${i}`, maxAttempts: 1 })), at));
    // The slow backlog is older: without fairness it would fill every slot first.
    await enqueue(SLOW, 40, new Date(Date.now() - 60_000));
    await enqueue(FAST, 5, new Date());
    const releases: ((outcome: AttemptOutcome) => void)[] = [];
    let slowInFlight = 0;
    let slowPeak = 0;
    const fastDone: string[] = [];
    const worker = createDeliveryWorker({
      db,
      table: deliveries,
      retryScheduleMs: [0],
      batchSize: 10,
      concurrency: 10,
      maxInFlightPerSubscription: 3,
      deliver: async (delivery) => {
        if (delivery.subscriptionId === FAST) {
          fastDone.push(delivery.payload);
          return { status: 204 };
        }
        slowInFlight += 1;
        slowPeak = Math.max(slowPeak, slowInFlight);
        return new Promise<AttemptOutcome>((resolve) => releases.push((outcome) => ((slowInFlight -= 1), resolve(outcome))));
      },
    });
    worker.start();
    try {
      await expect.poll(() => fastDone.length, { timeout: 5_000, interval: 10 }).toBe(5);
      // Never over the share: a claim gives a subscription only what its rows in flight leave of it.
      expect(slowPeak).toBe(3);
      expect(slowInFlight).toBeLessThanOrEqual(3);
    } finally {
      // Release every slow send (including those claimed as earlier ones finish) so stop() can drain.
      const releaser = setInterval(() => releases.splice(0).forEach((release) => release({ status: 204 })), 5);
      await vi.waitFor(() => expect(slowInFlight === 0 && releases.length === 0).toBe(true), { timeout: 10_000, interval: 10 }).catch(() => undefined);
      await worker.stop();
      clearInterval(releaser);
    }
    expect(fastDone).toHaveLength(5);
  });

  it('works through one subscription backlog many times its share at once, never over the share and never waiting for a poll', async () => {
    const db = testDatabase.database.db;
    const BACKLOG = 300;
    const SHARE = 64;
    await db.transaction((tx) =>
      enqueueDeliveries(tx, deliveries, Array.from({ length: BACKLOG }, (_, i) => ({ topic: 't', subscriptionId: SLOW, payload: `p-${i}`, maxAttempts: 1 })), new Date()),
    );
    let inFlight = 0;
    let peak = 0;
    let sent = 0;
    const worker = createDeliveryWorker({
      db,
      table: deliveries,
      retryScheduleMs: [0],
      batchSize: 100,
      concurrency: 200,
      maxInFlightPerSubscription: SHARE,
      // Far beyond the test's bound: only a worker that claims again as its sends finish gets through.
      pollIntervalMs: 600_000,
      deliver: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        sent += 1;
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return { status: 204 };
      },
    });
    worker.start();
    try {
      await expect.poll(() => sent, { timeout: 30_000, interval: 10 }).toBeGreaterThanOrEqual(BACKLOG);
    } finally {
      await worker.stop();
    }
    expect(sent).toBe(BACKLOG);
    expect(peak).toBeLessThanOrEqual(SHARE);
    const rows = await db.select().from(deliveries);
    expect(rows.filter((row) => row.status !== 'succeeded')).toEqual([]);
  });
});
