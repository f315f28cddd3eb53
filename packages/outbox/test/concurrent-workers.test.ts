import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createDeliveryWorker, enqueueDeliveries } from '../src/index.js';
import { deliveries } from './fixtures/schema.js';
import { createQueueTestDatabase } from './helpers.js';

// Locking only means something on a real PostgreSQL: PGlite is one connection, nothing ever waits.
describe.runIf(process.env.DATABASE_URL)('concurrent workers on PostgreSQL', () => {
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
});
