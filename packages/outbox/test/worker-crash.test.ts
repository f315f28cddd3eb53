import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describeNeeding, type TestDatabase } from '@svc/db/testing';
import { isWorkerRunning, spawnWorkerProcess, stopWorkerProcess, type WorkerProcess } from '@svc/service-kit/testing';
import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { enqueueDeliveries } from '../src/index.js';
import { deliveries } from './fixtures/schema.js';
import type * as schema from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const SUBSCRIPTION = '00000000-0000-4000-8000-000000000001';
const DELIVERIES = 48;
/** The receiver answers this many requests at once and holds every later one while the first worker lives. */
const ANSWERED = 16;
// Renewed every third of it: long enough that a worker starved of CPU for seconds keeps its own rows, short enough for a quick takeover.
const LEASE_MS = 10_000;
/** Start-up from source (tsx compiles on the fly) and the sends, on a loaded two-core machine: a deadline, not a delay. */
const DEADLINE_MS = 60_000;

interface Receipt {
  id: string;
  attempt: number;
}

/** A receiver on loopback: `answerNow(receipt)` false holds the request open until the sender goes away. */
async function startReceiver(answerNow: (receipt: Receipt) => boolean) {
  const receipts: Receipt[] = [];
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    request.resume();
    request.once('end', () => {
      const receipt = { id: String(request.headers['x-delivery-id']), attempt: Number(request.headers['x-delivery-attempt']) };
      receipts.push(receipt);
      if (answerNow(receipt)) response.writeHead(204).end();
      else held.push(response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    receipts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const spawnWorker = (env: Record<string, string>) => spawnWorkerProcess({ cwd: packageDir, entry: 'test/fixtures/delivery-worker-process.ts', env });
const stopWorker = (worker: WorkerProcess, signal: NodeJS.Signals) => stopWorkerProcess(worker, signal, 15_000);

/** Polls until `condition` holds; fails with the worker's output at the deadline or when it exits first. */
async function waitFor(what: string, condition: () => Promise<boolean>, worker: WorkerProcess): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!isWorkerRunning(worker)) throw new Error(`worker exited while waiting for ${what}:\n${worker.output()}`);
      if (!(await condition())) throw new Error(`timed out (${DEADLINE_MS} ms) waiting for ${what}; worker output:\n${worker.output()}`);
    },
    { timeout: DEADLINE_MS, interval: 25 },
  );
}

describeNeeding('DATABASE_URL')('a delivery worker process killed with SIGKILL mid-claim (PostgreSQL)', () => {
  let testDatabase: TestDatabase<typeof schema>;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    // Built once here so each test's database is a quick copy of the template.
    await (await createQueueTestDatabase()).cleanup();
  }, 120_000);
  beforeEach(async () => {
    testDatabase = await createQueueTestDatabase();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(workers.filter(isWorkerRunning).map((worker) => stopWorker(worker, 'SIGKILL')));
    workers.length = 0;
    await testDatabase.cleanup();
  }, 30_000);

  const db = () => testDatabase.database.db;
  const rows = () => db().select({ id: deliveries.id, status: deliveries.status, attemptCount: deliveries.attemptCount }).from(deliveries);
  const idsWith = async (status: string) => (await rows()).filter((row) => row.status === status).map((row) => row.id).sort();

  // The continuous worker, as both services' worker processes run it. (`MODE=by-hand`, runOnce in a loop,
  // still writes a claim only after its slowest send returned, so it would re-send the answered ones too.)
  for (const mode of ['continuous'] as const) {
    it(`${mode}: sends again exactly the deliveries left unanswered, never one whose answer it had`, async () => {
      await db().transaction((tx) =>
        enqueueDeliveries(tx, deliveries, Array.from({ length: DELIVERIES }, (_, index) => ({ topic: 'test', subscriptionId: SUBSCRIPTION, payload: `{"n":${index}}`, maxAttempts: 5 })), new Date()),
      );
      let holding = true;
      const answeredIds = new Set<string>();
      const heldIds = new Set<string>();
      const receiver = await startReceiver((receipt) => {
        if (!holding || answeredIds.size < ANSWERED) {
          if (holding) answeredIds.add(receipt.id);
          return true;
        }
        heldIds.add(receipt.id);
        return false;
      });
      try {
        const env = { DATABASE_URL: testDatabase.url!, RECEIVER_URL: receiver.url, LEASE_MS: String(LEASE_MS), BATCH_SIZE: '64' };
        const workerA = spawnWorker({ ...env, MODE: mode });
        workers.push(workerA);
        // Every delivery sent, the first ANSWERED answered, the rest held: nothing can change until the kill. The
        // answered ones must be recorded now, while the rest of their claim is still open at the receiver.
        await waitFor(
          'each answered delivery recorded while the held ones are open',
          async () => heldIds.size === DELIVERIES - ANSWERED && JSON.stringify(await idsWith('succeeded')) === JSON.stringify([...answeredIds].sort()),
          workerA,
        );
        expect(await stopWorker(workerA, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
        holding = false;
        // What the killed worker left behind: the held requests, in flight (claimed, no outcome), no more.
        expect(await idsWith('in_flight')).toEqual([...heldIds].sort());
        const sentByA = receiver.receipts.length;

        const workerB = spawnWorker({ ...env, MODE: 'continuous' });
        workers.push(workerB);
        await waitFor('every delivery recorded', async () => (await idsWith('succeeded')).length === DELIVERIES, workerB);

        const times = new Map<string, Receipt[]>();
        for (const receipt of receiver.receipts) times.set(receipt.id, [...(times.get(receipt.id) ?? []), receipt]);
        expect(times.size).toBe(DELIVERIES);
        const duplicated = [...times].filter(([, list]) => list.length > 1).map(([id]) => id).sort();
        console.info(`outbox crash (${mode}): ${duplicated.length} duplicates for ${heldIds.size} sends open at the kill; ${sentByA} sent by the killed worker`);
        // The duplicates are exactly the unanswered sends, each sent once more as its next attempt.
        expect(duplicated).toEqual([...heldIds].sort());
        for (const id of heldIds) expect(times.get(id)!.map((receipt) => receipt.attempt)).toEqual([1, 2]);
        for (const id of answeredIds) expect(times.get(id)!.map((receipt) => receipt.attempt)).toEqual([1]);
        expect(await stopWorker(workerB, 'SIGTERM')).toEqual({ code: 0, signal: null });
      } finally {
        await receiver.close();
      }
    }, 180_000);
  }
});
