import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, selectRows, type Database } from '../src/database.js';
import { startPrivatePostgres, type PrivatePostgres } from '../testing/index.js';

/**
 * The pool across a server restart, with transactions open when the server goes: each of them fails,
 * and a transaction begun once the server is back answers. postgres.js let a failed transaction's
 * callback keep sending queries on the connection it had lost; they were written into that
 * connection's next session, its replies were read as the wrong queries', and a later transaction
 * on it never answered (the patch in patches/postgres@3.4.9.patch fails those queries instead).
 */
let server: PrivatePostgres;
let database: Database;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  server = await startPrivatePostgres();
  database = await openDatabase({ driver: 'postgres', url: server.url, schemaName: 'restart_test', migrationsFolder: '', skipMigrations: true, maxConnections: 3 });
}, 120_000);
afterAll(async () => {
  await database?.close();
  await server?.destroy();
});

/** Rejects when `promise` has not settled within `ms`: the hang this file is about, reported instead of waited out. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** Runs `attempt` until it answers, each try bounded by `ms`, within `ms` in all. */
async function answeredWithin<T>(attempt: () => Promise<T>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await within(attempt(), Math.max(deadline - Date.now(), 1), what);
    } catch (error) {
      if (Date.now() >= deadline || (error instanceof Error && error.message.includes('did not answer'))) throw error;
      await pause(50);
    }
  }
}

describe('PostgreSQL restarts under open transactions', () => {
  it('fails the transactions it cut and answers the next ones', async () => {
    for (let round = 0; round < 3; round += 1) {
      // Five transactions whose callbacks go on sending once the server is going, and queries besides.
      const cut = [1, 2, 3, 4, 5].map((value) =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`select 1`);
          await pause(300);
          await selectRows(tx, sql`select ${value}::int as value`);
        }),
      );
      const plain = [1, 2, 3].map((value) => selectRows(database.db, sql`select pg_sleep(0.5), ${value}::int as value`));
      // Observed from the start: they fail while the server stops.
      const settled = Promise.allSettled([...cut, ...plain]);
      await pause(100);
      await server.stop();
      await pause(500);
      await server.start();
      const outcomes = await within(settled, 30_000, 'the cut transactions');
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(8).fill('rejected'));
      // The first statements after the restart may still fail (a session the server ended as it stopped); none may hang.
      const answered = await answeredWithin(() => database.db.transaction(async (tx) => selectRows<{ value: number }>(tx, sql`select ${round}::int as value`)), 20_000, 'a transaction after the restart');
      expect(answered).toEqual([{ value: round }]);
      // And every connection of the pool is usable again: as many transactions as it has connections, at once.
      const all = await answeredWithin(() => Promise.all([0, 1, 2].map((value) => database.db.transaction((tx) => selectRows<{ value: number }>(tx, sql`select ${value}::int as value`)))), 20_000, 'three transactions at once');
      expect(all.flat()).toEqual([{ value: 0 }, { value: 1 }, { value: 2 }]);
    }
  }, 180_000);
});
