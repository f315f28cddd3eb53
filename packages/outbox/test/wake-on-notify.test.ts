import type { TestDatabase } from '@svc/db/testing';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeliveryWorker, enqueueDeliveries, notifyWorkers, wakeOnNotify, type Delivery, type Listen, type QueueWorker } from '../src/index.js';
import { deliveries } from './fixtures/schema.js';
import type * as schema from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

// Runs on both drivers: PGlite delivers its own session's notifications, PostgreSQL those of
// any connection to the same database (the test database is a clone; LISTEN is per database).
const CHANNEL = 'outbox_test_wake';
const SUBSCRIPTION = '00000000-0000-4000-8000-000000000001';
let testDatabase: TestDatabase<typeof schema>;

beforeEach(async () => {
  testDatabase = await createQueueTestDatabase();
});
afterEach(async () => {
  await testDatabase.cleanup();
});

function db() {
  return testDatabase.database.db;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function enqueue(payload: string, notifyChannel: string | null = CHANNEL): Promise<string> {
  const [id] = await db().transaction((tx) =>
    enqueueDeliveries(tx, deliveries, [{ topic: 'rate_alert', subscriptionId: SUBSCRIPTION, payload, maxAttempts: 3 }], new Date(), notifyChannel ? { notifyChannel } : {}),
  );
  return id!;
}

async function row(id: string): Promise<Delivery> {
  const [found] = await db().select().from(deliveries).where(eq(deliveries.id, id));
  if (!found) throw new Error('missing row');
  return found;
}

/**
 * A worker that would otherwise find new rows only at its next poll, a minute away, wrapped
 * by wakeOnNotify on the real database. Wakes are counted (the worker's own wake still runs)
 * and the returned promise resolves once LISTEN is in place, so a test never races it.
 */
function createWokenWorker() {
  const sent: string[] = [];
  const inner = createDeliveryWorker({
    db: db(),
    table: deliveries,
    retryScheduleMs: [0],
    pollIntervalMs: 60_000,
    deliver: async (delivery) => {
      sent.push(delivery.payload);
      return { status: 204 };
    },
  });
  const counter = { wakes: 0 };
  const counted: QueueWorker = {
    ...inner,
    wake() {
      counter.wakes += 1;
      inner.wake();
    },
  };
  let listening: () => void = () => undefined;
  const listeningSignal = new Promise<void>((resolve) => (listening = resolve));
  const listen: Listen = async (channel, onNotification) => {
    const stopListening = await testDatabase.database.listen(channel, onNotification);
    listening();
    return stopListening;
  };
  const worker = wakeOnNotify(counted, listen, CHANNEL);
  return { worker, sent, counter, listeningSignal };
}

describe('wakeOnNotify on the real database', () => {
  it('delivers a row enqueued with notifyChannel long before the next poll', async () => {
    const { worker, sent, counter, listeningSignal } = createWokenWorker();
    worker.start();
    try {
      await listeningSignal;
      await sleep(100); // the start-up claim found nothing; the next poll is a minute away
      const id = await enqueue('{"n":1}');
      const enqueuedAt = Date.now();
      await vi.waitFor(async () => expect((await row(id)).status).toBe('succeeded'), { timeout: 2000, interval: 20 });
      expect(Date.now() - enqueuedAt).toBeLessThan(2000);
      expect(sent).toEqual(['{"n":1}']);
      expect(counter.wakes).toBeGreaterThanOrEqual(1);
    } finally {
      await worker.stop();
    }
  });

  it('is not woken by an enqueue without notifyChannel, nor on another channel', async () => {
    const { worker, counter, listeningSignal } = createWokenWorker();
    worker.start();
    try {
      await listeningSignal;
      const quietId = await enqueue('quiet', null);
      await db().transaction((tx) => notifyWorkers(tx, 'outbox_test_other'));
      await sleep(300);
      expect(counter.wakes).toBe(0);
      expect(await row(quietId)).toMatchObject({ status: 'pending', attemptCount: 0 });

      // notifyWorkers on the channel wakes it, and the wake claims what is due.
      await db().transaction((tx) => notifyWorkers(tx, CHANNEL));
      await vi.waitFor(async () => expect((await row(quietId)).status).toBe('succeeded'), { timeout: 2000, interval: 20 });
    } finally {
      await worker.stop();
    }
  });

  it('sends nothing for a rolled-back enqueue', async () => {
    const { worker, sent, counter, listeningSignal } = createWokenWorker();
    worker.start();
    try {
      await listeningSignal;
      await expect(
        db().transaction(async (tx) => {
          await enqueueDeliveries(tx, deliveries, [{ topic: 'rate_alert', subscriptionId: SUBSCRIPTION, payload: 'rolled back', maxAttempts: 3 }], new Date(), {
            notifyChannel: CHANNEL,
          });
          throw new Error('the state change failed');
        }),
      ).rejects.toThrow('the state change failed');
      await sleep(300);
      expect(counter.wakes).toBe(0);
      expect(sent).toEqual([]);

      // The listener was working all along: a committed enqueue wakes it.
      const id = await enqueue('committed');
      await vi.waitFor(async () => expect((await row(id)).status).toBe('succeeded'), { timeout: 2000, interval: 20 });
      expect(counter.wakes).toBe(1);
      expect(sent).toEqual(['committed']);
    } finally {
      await worker.stop();
    }
  });

  it('stops listening when the worker stops', async () => {
    const { worker, sent, counter, listeningSignal } = createWokenWorker();
    worker.start();
    await listeningSignal;
    const first = await enqueue('before stop');
    await vi.waitFor(async () => expect((await row(first)).status).toBe('succeeded'), { timeout: 2000, interval: 20 });
    const wakesBeforeStop = counter.wakes;
    await worker.stop();

    const after = await enqueue('after stop');
    await sleep(300);
    expect(counter.wakes).toBe(wakesBeforeStop);
    expect(sent).toEqual(['before stop']);
    expect(await row(after)).toMatchObject({ status: 'pending', attemptCount: 0 });
  });

  it('falls back to polling when LISTEN fails', async () => {
    const warnings: string[] = [];
    const inner = createDeliveryWorker({ db: db(), table: deliveries, retryScheduleMs: [0], pollIntervalMs: 100, deliver: async () => ({ status: 204 }) });
    // A channel name the database refuses: LISTEN itself fails, for real.
    const worker = wakeOnNotify(inner, testDatabase.database.listen, '', { warn: (_object, message) => void warnings.push(message) });
    worker.start();
    try {
      const id = await enqueue('polled');
      await vi.waitFor(async () => expect((await row(id)).status).toBe('succeeded'), { timeout: 2000, interval: 20 });
      expect(warnings).toEqual(['could not LISTEN for new work; the worker falls back to polling']);
    } finally {
      await worker.stop();
    }
  });
});
