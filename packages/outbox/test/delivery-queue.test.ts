import { createGuardedDispatcher, postOnce } from '@svc/outbound-http';
import type { TestDatabase } from '@svc/db/testing';
import { eq } from 'drizzle-orm';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeliveryWorker, enqueueDeliveries, type AttemptOutcome, type Delivery, type SettledDelivery } from '../src/index.js';
import { deliveries } from './fixtures/schema.js';
import type * as schema from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

const SUBSCRIPTION = '00000000-0000-4000-8000-000000000001';
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

async function enqueue(count = 1, maxAttempts = 3) {
  return db().transaction((tx) =>
    enqueueDeliveries(
      tx,
      deliveries,
      Array.from({ length: count }, (_, i) => ({ topic: 'rate_alert', subscriptionId: SUBSCRIPTION, payload: `{"n":${i}}`, maxAttempts })),
      now,
    ),
  );
}

async function row(id: string): Promise<Delivery> {
  const [found] = await db().select().from(deliveries).where(eq(deliveries.id, id));
  if (!found) throw new Error('missing row');
  return found;
}

describe('delivery queue', () => {
  it('delivers an enqueued event once and records success', async () => {
    const [id] = await enqueue();
    const sent: Delivery[] = [];
    const settled: SettledDelivery[] = [];
    const worker = createDeliveryWorker({
      db: db(),
      table: deliveries,
      clock,
      retryScheduleMs: [0, 5000, 30000],
      deliver: async (delivery) => {
        sent.push(delivery);
        return { status: 204 };
      },
      onSettled: async (_tx, result) => {
        settled.push(result);
      },
    });
    expect(await worker.runOnce()).toBe(1);
    expect(await worker.runOnce()).toBe(0);
    expect(sent.map((delivery) => delivery.payload)).toEqual(['{"n":0}']);
    expect(settled.map(({ succeeded, final, outcome }) => ({ succeeded, final, outcome }))).toEqual([{ succeeded: true, final: true, outcome: { status: 204 } }]);
    expect(await row(id!)).toMatchObject({ status: 'succeeded', attemptCount: 1, lastStatusCode: 204, completedAt: now, leaseExpiresAt: null });
  });

  it('retries on the schedule and gives up after the last attempt', async () => {
    const [id] = await enqueue(1, 3);
    const outcomes: AttemptOutcome[] = [{ status: 500 }, { status: 0, error: 'timed out after 10000 ms' }, { status: 503 }];
    const settled: SettledDelivery[] = [];
    const worker = createDeliveryWorker({
      db: db(),
      table: deliveries,
      clock,
      retryScheduleMs: [0, 5000, 30000],
      deliver: async () => outcomes.shift()!,
      onSettled: async (_tx, result) => {
        settled.push(result);
      },
    });
    expect(await worker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'pending', attemptCount: 1, lastStatusCode: 500, nextAttemptAt: new Date('2026-11-23T10:00:05.000Z') });
    now = new Date('2026-11-23T10:00:04.999Z');
    expect(await worker.runOnce()).toBe(0);
    now = new Date('2026-11-23T10:00:05.000Z');
    expect(await worker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'pending', attemptCount: 2, lastStatusCode: 0, lastError: 'timed out after 10000 ms', nextAttemptAt: new Date('2026-11-23T10:00:35.000Z') });
    now = new Date('2026-11-23T10:00:35.000Z');
    expect(await worker.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'failed', attemptCount: 3, lastStatusCode: 503, completedAt: now });
    now = new Date('2026-11-23T11:00:00.000Z');
    expect(await worker.runOnce()).toBe(0);
    expect(settled.map(({ succeeded, final }) => [succeeded, final])).toEqual([
      [false, false],
      [false, false],
      [false, true],
    ]);
  });

  it('does not deliver events whose transaction rolled back', async () => {
    await expect(
      db().transaction(async (tx) => {
        await enqueueDeliveries(tx, deliveries, [{ topic: 'rate_alert', subscriptionId: SUBSCRIPTION, payload: '{}', maxAttempts: 3 }], now);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    const worker = createDeliveryWorker({ db: db(), table: deliveries, clock, retryScheduleMs: [0], deliver: async () => ({ status: 204 }) });
    expect(await worker.runOnce()).toBe(0);
  });

  it('takes over a delivery whose worker died once its lease expires, and ignores the dead worker late answer', async () => {
    const [id] = await enqueue(1, 3);
    let release: (outcome: AttemptOutcome) => void = () => undefined;
    const stuck = createDeliveryWorker({
      db: db(),
      table: deliveries,
      clock,
      leaseMs: 60_000,
      retryScheduleMs: [0, 5000],
      deliver: () => new Promise<AttemptOutcome>((resolve) => (release = resolve)),
    });
    const stuckRun = stuck.runOnce();
    await expect.poll(() => row(id!), { interval: 10 }).toMatchObject({ status: 'in_flight', attemptCount: 1 });

    const rescuer = createDeliveryWorker({ db: db(), table: deliveries, clock, leaseMs: 60_000, retryScheduleMs: [0, 5000], deliver: async () => ({ status: 200 }) });
    expect(await rescuer.runOnce()).toBe(0); // lease still held
    now = new Date(now.getTime() + 60_000);
    expect(await rescuer.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'succeeded', attemptCount: 2, lastStatusCode: 200 });

    release({ status: 500 }); // the first worker wakes up late
    await stuckRun;
    expect(await row(id!)).toMatchObject({ status: 'succeeded', attemptCount: 2, lastStatusCode: 200 });
  });

  it('fails, without sending again, a delivery whose worker died during its last attempt', async () => {
    const [id] = await enqueue(1, 1);
    const stuck = createDeliveryWorker({ db: db(), table: deliveries, clock, leaseMs: 60_000, retryScheduleMs: [0], deliver: () => new Promise<AttemptOutcome>(() => undefined) });
    void stuck.runOnce();
    await vi.waitFor(async () => expect(await row(id!)).toMatchObject({ status: 'in_flight', attemptCount: 1 }));

    let sends = 0;
    const settled: SettledDelivery[] = [];
    const rescuer = createDeliveryWorker({
      db: db(),
      table: deliveries,
      clock,
      leaseMs: 60_000,
      retryScheduleMs: [0],
      deliver: async () => {
        sends += 1;
        return { status: 200 };
      },
      onSettled: async (_tx, result) => void settled.push(result),
    });
    now = new Date(now.getTime() + 60_000);
    expect(await rescuer.runOnce()).toBe(1);
    expect(sends).toBe(0);
    expect(settled.map(({ succeeded, final, outcome }) => ({ succeeded, final, status: outcome.status }))).toEqual([{ succeeded: false, final: true, status: 0 }]);
    expect(await row(id!)).toMatchObject({ status: 'failed', attemptCount: 2, lastStatusCode: 0, completedAt: now });
  });

  it('records a throwing deliver function as a failed attempt with status 0', async () => {
    const [id] = await enqueue(1, 2);
    const worker = createDeliveryWorker({
      db: db(),
      table: deliveries,
      clock,
      retryScheduleMs: [0, 1000],
      deliver: async () => {
        throw new Error('secret could not be decrypted');
      },
    });
    await worker.runOnce();
    expect(await row(id!)).toMatchObject({ status: 'pending', lastStatusCode: 0, lastError: 'secret could not be decrypted' });
  });

  it('delivers over real HTTP when started, and wake() sends without waiting for the poll', async () => {
    const bodies: string[] = [];
    const server: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        bodies.push(body);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const policy = { allowPrivateTargets: true };
    const dispatcher = await createGuardedDispatcher(policy);
    const worker = createDeliveryWorker({
      db: db(),
      table: deliveries,
      retryScheduleMs: [0],
      pollIntervalMs: 60_000,
      deliver: (delivery) => postOnce({ url, body: delivery.payload, headers: { 'content-type': 'application/json' }, dispatcher, policy, timeoutMs: 2000 }),
    });
    worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100)); // first (empty) poll done
      now = new Date();
      await enqueue(2);
      worker.wake();
      await expect.poll(() => bodies.length, { timeout: 2_000, interval: 20 }).toBe(2);
      expect(bodies.sort()).toEqual(['{"n":0}', '{"n":1}']);
    } finally {
      await worker.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
