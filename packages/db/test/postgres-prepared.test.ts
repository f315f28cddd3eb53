import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { selectRows } from '../src/database.js';
import { createTestDatabase, describeNeeding, type TestDatabase } from '../testing/index.js';
import { migrationOptions } from './helpers.js';

/** Named statements this session holds for texts carrying `marker` (unnamed ones are not listed). */
const preparedFor = (marker: string) => sql`select count(*)::int as count from pg_prepared_statements where statement like ${`%${marker}%`} and statement not like '%pg_prepared_statements%'`;

describeNeeding('DATABASE_URL')('Drizzle on PostgreSQL: queries with parameters run as prepared statements', () => {
  let test: TestDatabase<Record<string, never>>;

  beforeAll(async () => {
    test = await createTestDatabase(migrationOptions);
    await test.database.db.execute(sql`insert into dbtest.notes (body) values ('one'), ('two'), ('three')`);
  });
  afterAll(() => test?.cleanup());

  it('prepares a query with parameters once per connection and answers it the same every time', async () => {
    const { db } = test.database;
    await db.transaction(async (tx) => {
      for (let round = 0; round < 3; round += 1) {
        const rows = await selectRows<{ body: string }>(tx, sql`select body /* marker-a */ from dbtest.notes where id > ${1} and body <> ${'three'} order by id`);
        expect(rows.map((row) => row.body)).toEqual(['two']);
      }
      // One named statement for the text, however often it ran on this connection.
      expect(await selectRows(tx, preparedFor('marker-a'))).toEqual([{ count: 1 }]);
    });
  });

  it('prepares inside a savepoint too, and a rolled-back savepoint leaves the outer transaction whole', async () => {
    const { db } = test.database;
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into dbtest.notes (body) values (${'outer'})`);
      await expect(
        tx.transaction(async (inner) => {
          await inner.execute(sql`insert into dbtest.notes (body) /* marker-b */ values (${'inner'})`);
          expect(await selectRows(inner, preparedFor('marker-b'))).toEqual([{ count: 1 }]);
          throw new Error('roll the savepoint back');
        }),
      ).rejects.toThrow('roll the savepoint back');
      const bodies = await selectRows<{ body: string }>(tx, sql`select body from dbtest.notes where body in (${'outer'}, ${'inner'})`);
      expect(bodies).toEqual([{ body: 'outer' }]);
      tx.rollback();
    }).catch((error: unknown) => {
      if (!(error instanceof Error && error.message === 'Rollback')) throw error;
    });
  });

  it('after a migration changed a column under its prepared statements: no hang, at most one failure per connection, then answers', async () => {
    const { db } = test.database;
    // Drizzle names its columns, so what invalidates a cached plan is a selected column's new type.
    const query = sql`select id, body /* marker-c */ from dbtest.notes where id = ${1}`;
    const round = () => Promise.allSettled(Array.from({ length: 20 }, () => selectRows(db, query)));
    expect((await round()).every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    await db.execute(sql`alter table dbtest.notes alter column body type varchar(200)`);
    try {
      // A query alone on its connection is prepared again and answered; one pipelined behind
      // another fails once (postgres.js would otherwise read the replies as the wrong query's).
      const outcomes = await round();
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') expect(outcome.value).toEqual([{ id: 1, body: 'one' }]);
        else expect(outcome.reason).toMatchObject({ cause: { code: '0A000' } });
      }
      const again = await round();
      expect(again.map((outcome) => outcome.status)).toEqual(Array(20).fill('fulfilled'));
      for (let index = 0; index < 5; index += 1) expect(await selectRows(db, query)).toEqual([{ id: 1, body: 'one' }]);
    } finally {
      await db.execute(sql`alter table dbtest.notes alter column body type text`);
    }
  });

  it('keeps the simple protocol for a query without parameters', async () => {
    const rows = await selectRows<{ n: number }>(test.database.db, sql`select 41 + 1 as n`);
    expect(rows).toEqual([{ n: 42 }]);
  });
});
