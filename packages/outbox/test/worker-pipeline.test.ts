import type { TestDatabase } from '@svc/db/testing';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeliveryWorker, enqueueDeliveries, type AttemptOutcome, type Delivery, type DeliveryWorkerOptions, type EnqueueDelivery, type SettledDelivery } from '../src/index.js';
import { deliveries } from './fixtures/schema.js';
import type * as schema from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

const SUBSCRIPTION = '00000000-0000-4000-8000-000000000001';
const DAY_MS = 86_400_000;
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

async function enqueue(payloads: string[], overrides: Partial<EnqueueDelivery> = {}, at: Date = now): Promise<string[]> {
  return db().transaction((tx) =>
    enqueueDeliveries(tx, deliveries, payloads.map((payload) => ({ topic: 'rate_alert', subscriptionId: SUBSCRIPTION, payload, maxAttempts: 3, ...overrides })), at),
  );
}

async function row(id: string): Promise<Delivery> {
  const [found] = await db().select().from(deliveries).where(eq(deliveries.id, id));
  if (!found) throw new Error('missing row');
  return found;
}

function worker<Context = undefined>(options: Partial<DeliveryWorkerOptions<Context>> & Pick<DeliveryWorkerOptions<Context>, 'deliver'>) {
  return createDeliveryWorker<Context>({ db: db(), table: deliveries, clock, retryScheduleMs: [0, 5000], ...options });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

describe('started worker: a slow delivery holds one slot, not the queue', () => {
  // The slow row is enqueued first so it is in the very first claim.
  const variants: { name: string; batchSize?: number; concurrency?: number }[] = [
    { name: 'default settings (one claim takes all 21)' },
    { name: 'batchSize 4, concurrency 4 (claims more as slots free)', batchSize: 4, concurrency: 4 },
  ];
  for (const settings of variants) {
    it(`lets 20 deliveries succeed while one hangs: ${settings.name}`, async () => {
      await enqueue(['hang'], {}, at(-1000));
      const fastIds = await enqueue(Array.from({ length: 20 }, (_, i) => `fast-${i}`));
      let release: (outcome: AttemptOutcome) => void = () => undefined;
      const sends = new Map<string, number>();
      const queue = worker({
        pollIntervalMs: 50,
        ...(settings.batchSize ? { batchSize: settings.batchSize } : {}),
        ...(settings.concurrency ? { concurrency: settings.concurrency } : {}),
        deliver: (delivery) => {
          sends.set(delivery.payload, (sends.get(delivery.payload) ?? 0) + 1);
          if (delivery.payload === 'hang') return new Promise<AttemptOutcome>((resolve) => (release = resolve));
          return Promise.resolve({ status: 200 });
        },
      });
      queue.start();
      try {
        await vi.waitFor(
          async () => {
            const statuses = await Promise.all(fastIds.map(async (id) => (await row(id)).status));
            expect(statuses.filter((status) => status === 'succeeded')).toHaveLength(20);
          },
          { timeout: 10_000, interval: 50 },
        );
        const [hung] = await db().select().from(deliveries).where(eq(deliveries.payload, 'hang'));
        expect(hung).toMatchObject({ status: 'in_flight', attemptCount: 1 });
      } finally {
        release({ status: 204 });
        await queue.stop();
      }
      expect([...sends.values()].every((count) => count === 1)).toBe(true);
      expect(sends.size).toBe(21);
      const [hung] = await db().select().from(deliveries).where(eq(deliveries.payload, 'hang'));
      expect(hung).toMatchObject({ status: 'succeeded', lastStatusCode: 204, leaseExpiresAt: null });
    });
  }
});

describe('retry timing', () => {
  it('honours Retry-After when longer than the schedule, caps it at maxRetryAfterMs, and keeps the schedule when shorter', async () => {
    const outcomes: Record<string, AttemptOutcome> = {
      longer: { status: 429, retryAfterMs: 120_000 },
      capped: { status: 503, retryAfterMs: 3_600_000 },
      shorter: { status: 503, retryAfterMs: 1000 },
      none: { status: 500 },
    };
    const ids = await enqueue(Object.keys(outcomes));
    const queue = worker({ retryScheduleMs: [0, 5000], maxRetryAfterMs: 600_000, deliver: async (delivery) => outcomes[delivery.payload]! });
    expect(await queue.runOnce()).toBe(4);
    const rows = await Promise.all(ids.map(row));
    expect(rows.map(({ payload, status, lastStatusCode, nextAttemptAt }) => ({ payload, status, lastStatusCode, nextAttemptAt }))).toEqual([
      { payload: 'longer', status: 'pending', lastStatusCode: 429, nextAttemptAt: at(120_000) },
      { payload: 'capped', status: 'pending', lastStatusCode: 503, nextAttemptAt: at(600_000) },
      { payload: 'shorter', status: 'pending', lastStatusCode: 503, nextAttemptAt: at(5000) },
      { payload: 'none', status: 'pending', lastStatusCode: 500, nextAttemptAt: at(5000) },
    ]);
    // Not claimed before the receiver's time.
    const attemptedAt = now.getTime();
    now = new Date(attemptedAt + 119_999);
    expect(await queue.runOnce()).toBe(2); // shorter and none
    now = new Date(attemptedAt + 120_000);
    expect(await queue.runOnce()).toBe(1); // longer
  });

  it('caps Retry-After at 24 hours by default', async () => {
    const [id] = await enqueue(['x']);
    const queue = worker({ deliver: async () => ({ status: 429, retryAfterMs: 7 * DAY_MS }) });
    await queue.runOnce();
    expect((await row(id!)).nextAttemptAt).toEqual(at(DAY_MS));
  });

  it('fails a permanent outcome at once, with attempts left', async () => {
    const [id] = await enqueue(['gone'], { maxAttempts: 5 });
    const settled: SettledDelivery[] = [];
    const queue = worker({ deliver: async () => ({ status: 410, permanent: true, error: 'receiver answered 410 Gone' }), onSettled: async (_tx, result) => void settled.push(result) });
    expect(await queue.runOnce()).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'failed', attemptCount: 1, lastStatusCode: 410, lastError: 'receiver answered 410 Gone', completedAt: now, leaseExpiresAt: null });
    expect(settled.map(({ succeeded, final }) => ({ succeeded, final }))).toEqual([{ succeeded: false, final: true }]);
    now = at(DAY_MS);
    expect(await queue.runOnce()).toBe(0);
  });

  it('spreads retry delays within ± jitter of the schedule', async () => {
    const ids = await enqueue(Array.from({ length: 60 }, (_, i) => String(i)));
    const queue = worker({ retryScheduleMs: [0, 10_000], jitter: 0.1, batchSize: 60, deliver: async () => ({ status: 500 }) });
    expect(await queue.runOnce()).toBe(60);
    const delays = (await Promise.all(ids.map(row))).map((delivery) => delivery.nextAttemptAt.getTime() - now.getTime());
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(9000);
      expect(delay).toBeLessThanOrEqual(11_000);
    }
    expect(new Set(delays).size).toBeGreaterThan(30);
    expect(delays.some((delay) => delay < 10_000)).toBe(true);
    expect(delays.some((delay) => delay > 10_000)).toBe(true);
  });
});

describe('claiming', () => {
  it('leaves rows that do not meet claimableWhere pending, and claims them once they do', async () => {
    const [heldId] = await enqueue(['held'], { topic: 'paused' });
    const [readyId] = await enqueue(['ready']);
    const sent: string[] = [];
    const queue = worker({
      claimableWhere: sql`${deliveries.topic} <> 'paused' and payload not like 'skip%'`,
      deliver: async (delivery) => {
        sent.push(delivery.payload);
        return { status: 200 };
      },
    });
    expect(await queue.runOnce()).toBe(1);
    expect(sent).toEqual(['ready']);
    expect(await row(readyId!)).toMatchObject({ status: 'succeeded' });
    expect(await row(heldId!)).toMatchObject({ status: 'pending', attemptCount: 0, leaseExpiresAt: null, lastAttemptAt: null });
    expect(await queue.runOnce()).toBe(0);

    await db().update(deliveries).set({ topic: 'rate_alert' }).where(eq(deliveries.id, heldId!));
    expect(await queue.runOnce()).toBe(1);
    expect(sent).toEqual(['ready', 'held']);
    expect(await row(heldId!)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
  });

  it('calls prepare once per claim with every claimed row and hands its result to each attempt', async () => {
    const ids = await enqueue(['a', 'b', 'c', 'd', 'e']);
    const prepared: string[][] = [];
    const seen: { payload: string; context: { claim: number; payloads: string[] } }[] = [];
    const queue = worker({
      batchSize: 3,
      prepare: async (rows) => {
        prepared.push(rows.map((delivery) => delivery.payload).sort());
        return { claim: prepared.length, payloads: rows.map((delivery) => delivery.payload) };
      },
      deliver: async (delivery, context) => {
        seen.push({ payload: delivery.payload, context });
        return { status: 200 };
      },
    });
    expect(await queue.runOnce()).toBe(3);
    expect(await queue.runOnce()).toBe(2);
    expect(await queue.runOnce()).toBe(0);
    expect(prepared).toHaveLength(2);
    expect(prepared.flat().sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(prepared.map((payloads) => payloads.length)).toEqual([3, 2]);
    expect(seen).toHaveLength(5);
    for (const { payload, context } of seen) {
      expect(context.payloads).toContain(payload);
      expect(prepared[context.claim - 1]).toEqual([...context.payloads].sort());
    }
    expect((await Promise.all(ids.map(row))).every((delivery) => delivery.status === 'succeeded')).toBe(true);
  });
});

describe('lease renewal (real time)', () => {
  it('renews the leases of a batch run by hand (runOnce) too, so no other worker takes its rows meanwhile', async () => {
    const [id] = await enqueue(['slow by hand'], {}, new Date());
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const deliver = async () => {
      calls += 1;
      await released;
      return { status: 200 };
    };
    const settings = { table: deliveries, retryScheduleMs: [0, 5000], leaseMs: 600, deliver };
    const running = createDeliveryWorker({ ...settings, db: db() }).runOnce();
    await vi.waitFor(() => expect(calls).toBe(1), { timeout: 2000, interval: 10 });
    const claimed = await row(id!);
    // A renewal pushed the lease taken at the claim further out.
    await vi.waitFor(async () => expect((await row(id!)).leaseExpiresAt!.getTime()).toBeGreaterThan(claimed.leaseExpiresAt!.getTime()), { timeout: 3000, interval: 20 });
    expect(await createDeliveryWorker({ ...settings, db: db() }).runOnce()).toBe(0);
    release();
    expect(await running).toBe(1);
    expect(calls).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'succeeded', attemptCount: 1, leaseExpiresAt: null });
  });

  it('keeps a long attempt its own: a second worker never takes the row while the first renews its lease', async () => {
    const [id] = await enqueue(['slow'], {}, new Date());
    // On PostgreSQL the second worker is another connection, as another process would be.
    const otherClient = testDatabase.url ? postgres(testDatabase.url, { max: 2, onnotice: () => undefined }) : null;
    let calls = 0;
    const deliver = async () => {
      calls += 1;
      await sleep(1500);
      return { status: 200 };
    };
    const settings = { table: deliveries, retryScheduleMs: [0, 5000], leaseMs: 600, pollIntervalMs: 50, deliver };
    const first = createDeliveryWorker({ ...settings, db: db() });
    const second = createDeliveryWorker({ ...settings, db: otherClient ? drizzle(otherClient) : db() });
    first.start();
    try {
      await vi.waitFor(() => expect(calls).toBe(1), { timeout: 2000, interval: 10 });
      const claimedBy = Date.now();
      second.start();
      await sleep(1000); // past the 600 ms lease taken at the claim
      const during = await row(id!);
      expect(during).toMatchObject({ status: 'in_flight', attemptCount: 1 });
      expect(during.leaseExpiresAt!.getTime()).toBeGreaterThan(claimedBy + 600);
      expect(calls).toBe(1);
      await vi.waitFor(async () => expect((await row(id!)).status).toBe('succeeded'), { timeout: 3000, interval: 50 });
      await sleep(300); // the second worker polls a few more times
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await otherClient?.end({ timeout: 5 });
    }
    expect(calls).toBe(1);
    expect(await row(id!)).toMatchObject({ status: 'succeeded', attemptCount: 1, lastStatusCode: 200, leaseExpiresAt: null });
  });
});

describe('retention', () => {
  async function insertAged(payload: string, status: Delivery['status'], completedAt: Date | null) {
    const [inserted] = await db()
      .insert(deliveries)
      .values({ topic: 'rate_alert', subscriptionId: SUBSCRIPTION, payload, maxAttempts: 3, status, attemptCount: 1, nextAttemptAt: at(-30 * DAY_MS), createdAt: at(-30 * DAY_MS), completedAt })
      .returning({ id: deliveries.id });
    return inserted!.id;
  }

  async function remainingPayloads(): Promise<string[]> {
    return (await db().select({ payload: deliveries.payload }).from(deliveries)).map(({ payload }) => payload).sort();
  }

  async function seedAgedRows() {
    for (let i = 0; i < 3; i += 1) await insertAged(`old-succeeded-${i}`, 'succeeded', at(-10 * DAY_MS - i));
    for (let i = 0; i < 2; i += 1) await insertAged(`old-failed-${i}`, 'failed', at(-8 * DAY_MS - i));
    await insertAged('boundary-succeeded', 'succeeded', at(-7 * DAY_MS));
    await insertAged('new-succeeded', 'succeeded', at(-6 * DAY_MS));
    await insertAged('new-failed', 'failed', at(-1000));
    // Unfinished rows are never deleted, whatever their age (completed_at set here only to prove the status filter).
    await insertAged('old-pending', 'pending', at(-20 * DAY_MS));
    await insertAged('old-in-flight', 'in_flight', at(-20 * DAY_MS));
    await insertAged('pending-never-completed', 'pending', null);
  }
  const kept = ['boundary-succeeded', 'new-failed', 'new-succeeded', 'old-in-flight', 'old-pending', 'pending-never-completed'];

  it('purgeFinished deletes finished rows older than the retention, in batches, and keeps the rest', async () => {
    await seedAgedRows();
    const queue = worker({ retention: { days: 7, batchSize: 2 }, deliver: async () => ({ status: 200 }) });
    expect(await queue.purgeFinished()).toBe(5); // batches of 2, 2, 1
    expect(await remainingPayloads()).toEqual(kept);
    expect(await queue.purgeFinished()).toBe(0);
  });

  it('purges nothing without retention', async () => {
    await seedAgedRows();
    expect(await worker({ deliver: async () => ({ status: 200 }) }).purgeFinished()).toBe(0);
    expect(await remainingPayloads()).toHaveLength(11);
  });

  it('purges when a worker starts', async () => {
    await seedAgedRows();
    const queue = worker({ retention: { days: 7, batchSize: 4 }, pollIntervalMs: 60_000, deliver: async () => ({ status: 200 }) });
    queue.start();
    try {
      await vi.waitFor(async () => expect(await remainingPayloads()).toEqual(kept), { timeout: 3000, interval: 50 });
    } finally {
      await queue.stop();
    }
  });
});

describe('settling many rows at once', () => {
  it('records 120 mixed outcomes from one claim, each on its own row', async () => {
    const kinds = ['ok', 'retry', 'network', 'gone', 'throttled', 'last'] as const;
    type Kind = (typeof kinds)[number];
    const payloads = Array.from({ length: 120 }, (_, i) => `${kinds[i % kinds.length]}-${i}`);
    const ids = await enqueue(payloads);
    // The `last` rows are on their last attempt already: their failure is final.
    await db().update(deliveries).set({ maxAttempts: 1 }).where(sql`payload like 'last-%'`);
    const outcomes: Record<Kind, AttemptOutcome> = {
      ok: { status: 204 },
      retry: { status: 500, error: 'receiver answered 500' },
      network: { status: 0, error: 'connect ECONNREFUSED' },
      gone: { status: 410, permanent: true, error: 'receiver answered 410' },
      throttled: { status: 429, retryAfterMs: 60_000 },
      last: { status: 502 },
    };
    const kindOf = (payload: string) => payload.split('-')[0] as Kind;
    const settled: SettledDelivery[] = [];
    const queue = worker({
      batchSize: 120,
      deliver: async (delivery) => outcomes[kindOf(delivery.payload)],
      onSettled: async (_tx, result) => void settled.push(result),
    });
    expect(await queue.runOnce()).toBe(120);
    expect(settled).toHaveLength(120);

    const expected: Record<Kind, Partial<Delivery>> = {
      ok: { status: 'succeeded', lastStatusCode: 204, lastError: null, completedAt: now },
      retry: { status: 'pending', lastStatusCode: 500, lastError: 'receiver answered 500', completedAt: null, nextAttemptAt: at(5000) },
      network: { status: 'pending', lastStatusCode: 0, lastError: 'connect ECONNREFUSED', completedAt: null, nextAttemptAt: at(5000) },
      gone: { status: 'failed', lastStatusCode: 410, lastError: 'receiver answered 410', completedAt: now },
      throttled: { status: 'pending', lastStatusCode: 429, lastError: null, completedAt: null, nextAttemptAt: at(60_000) },
      last: { status: 'failed', lastStatusCode: 502, lastError: null, completedAt: now },
    };
    const rows = await Promise.all(ids.map(row));
    for (const delivery of rows) {
      expect(delivery).toMatchObject({ ...expected[kindOf(delivery.payload)], attemptCount: 1, lastAttemptAt: now, leaseExpiresAt: null });
    }
    for (const { delivery, succeeded, final } of settled) {
      const kind = kindOf(delivery.payload);
      expect({ kind, succeeded, final }).toEqual({ kind, succeeded: kind === 'ok', final: ['ok', 'gone', 'last'].includes(kind) });
    }
  });

  it('records more outcomes than one settle statement holds', async () => {
    const ids = await enqueue(Array.from({ length: 1001 }, (_, i) => String(i)));
    const queue = worker({ batchSize: 1001, deliver: async (delivery) => ({ status: Number(delivery.payload) % 2 === 0 ? 200 : 500 }) });
    expect(await queue.runOnce()).toBe(1001);
    const rows = await db().select({ id: deliveries.id, payload: deliveries.payload, status: deliveries.status, lastStatusCode: deliveries.lastStatusCode }).from(deliveries);
    expect(rows).toHaveLength(ids.length);
    for (const { payload, status, lastStatusCode } of rows) {
      const even = Number(payload) % 2 === 0;
      expect({ payload, status, lastStatusCode }).toEqual({ payload, status: even ? 'succeeded' : 'pending', lastStatusCode: even ? 200 : 500 });
    }
  });
});
