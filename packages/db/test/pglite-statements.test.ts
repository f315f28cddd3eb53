import { PGlite, types } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteStatements } from '../src/pglite-statements.js';

// Each answer is compared with PGlite's own query() on the same database: the statements must be a
// faster way to the same results, errors and notifications, never a different one.
let client: PGlite;
let statements: PgliteStatements;

/** How many named statements the session holds (pg_prepared_statements lists protocol-level ones too). */
async function preparedCount(): Promise<number> {
  const { rows } = await client.query<{ count: number }>(`select count(*)::int as count from pg_prepared_statements where name like 'svc_s%'`);
  return rows[0]!.count;
}

beforeAll(async () => {
  client = await PGlite.create();
  statements = new PgliteStatements(client);
  await client.exec(`
    create table notes (id serial primary key, body text not null unique, tags text[] not null default '{}', meta jsonb, at timestamptz not null default '2026-01-02T03:04:05Z', n numeric);
    insert into notes (body, tags, meta, n) values ('one', '{a,b}', '{"k": 1}', 1.50), ('two', '{}', null, null);
  `);
});
afterAll(async () => {
  await client.close();
});

describe('PgliteStatements', () => {
  it('answers selects exactly as PGlite does, in both row modes and with the query’s own parsers', async () => {
    const selects: [string, unknown[]][] = [
      ['select id, body, tags, meta, at, n from notes where body = any($1) order by id', [['one', 'two']]],
      ['select count(*) from notes where tags @> $1', [['a']]],
      ['select $1::int + 1 as a, $1::int + 2 as a', [1]],
      ['select body from notes where false', []],
    ];
    for (const [text, params] of selects) {
      for (const rowMode of ['object', 'array'] as const) {
        for (const parsers of [undefined, { [types.TIMESTAMPTZ]: (value: string) => `at:${value}` }]) {
          const options = { rowMode, ...(parsers ? { parsers } : {}) };
          expect(await statements.query(text, params, options), `${text} (${rowMode})`).toEqual(await client.query(text, params, options));
        }
      }
    }
  });

  it('reports writes as PGlite does: command, affected rows, row count and returned rows', async () => {
    const writes: [string, (body: string) => unknown[], (body: string) => unknown[]][] = [
      ['insert into notes (body, meta) values ($1, $2) returning body, meta, at', (body) => [body, { deep: [1, 'x'] }], (body) => [{ body, meta: { deep: [1, 'x'] }, at: new Date('2026-01-02T03:04:05Z') }]],
      ['update notes set n = $1 where body = $2', (body) => [2.25, body], () => []],
      ['delete from notes where body = $1 returning body', (body) => [body], (body) => [{ body }]],
    ];
    for (const [text, params, rows] of writes) {
      const viaPglite = await client.query(text, params('by-pglite'));
      expect(viaPglite.rows).toEqual(rows('by-pglite'));
      expect(await statements.query(text, params('by-statements'))).toEqual({ ...viaPglite, rows: rows('by-statements') });
    }
  });

  it('keeps one named statement per text and reuses it', async () => {
    const before = await preparedCount();
    for (let index = 0; index < 5; index++) await statements.query('select body from notes where id = $1', [1]);
    await statements.query('select body from notes where id = $1 and body = $2', [1, 'one']);
    expect(await preparedCount()).toBe(before + 2);
    // DDL and savepoints are not kept.
    await statements.query('create temporary table scratch (x int)');
    await statements.query('drop table scratch');
    expect(await preparedCount()).toBe(before + 2);
  });

  it('throws PGlite’s DatabaseError with the query attached, and the next query works', async () => {
    const error = await statements.query('insert into notes (body) values ($1)', ['one']).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: '23505', query: 'insert into notes (body) values ($1)', params: ['one'] });
    const parseError = await statements.query('select nope from notes').catch((caught: unknown) => caught);
    expect(parseError).toMatchObject({ code: '42703', query: 'select nope from notes' });
    expect((await statements.query('select 1 as ok')).rows).toEqual([{ ok: 1 }]);
  });

  it('re-parses a kept statement whose result columns changed under it', async () => {
    await client.exec('create table shifting (a int); insert into shifting values (1)');
    expect((await statements.query('select * from shifting')).rows).toEqual([{ a: 1 }]);
    await client.exec('alter table shifting add column b text');
    expect((await statements.query('select * from shifting')).rows).toEqual([{ a: 1, b: null }]);
    // A statement dropped behind its back (DEALLOCATE ALL) is parsed again too.
    await client.exec('deallocate all');
    expect((await statements.query('select * from shifting')).rows).toEqual([{ a: 1, b: null }]);
  });

  it('closes the least recently used statement beyond its bound, and evicted texts still answer', async () => {
    for (let index = 0; index < 300; index++) {
      const { rows } = await statements.query(`select $1::int + ${index} as value`, [1]);
      expect(rows).toEqual([{ value: 1 + index }]);
    }
    expect(await preparedCount()).toBeLessThanOrEqual(256);
    expect((await statements.query('select $1::int + 0 as value', [41])).rows).toEqual([{ value: 41 }]);
  });

  it('closes the least recently used, not the oldest: a text in steady use stays parsed', async () => {
    const hot = 'select $1::int as hot';
    const preparedAs = async () => (await client.query<{ name: string }>('select name from pg_prepared_statements where statement = $1', [hot])).rows.map((row) => row.name);
    await statements.query(hot, [1]);
    const [name] = await preparedAs();
    expect(name).toMatch(/^svc_s\d+$/);
    for (let index = 0; index < 600; index++) {
      await statements.query(`select $1::int - ${index} as cold`, [1]);
      if (index % 50 === 0) await statements.query(hot, [1]);
    }
    expect(await preparedAs()).toEqual([name]);
  });

  it('runs concurrent queries one at a time without mixing their results', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, index) => statements.query<{ value: number }>('select $1::int * 2 as value', [index])));
    expect(results.map((result) => result.rows[0]!.value)).toEqual(Array.from({ length: 50 }, (_, index) => index * 2));
  });

  it('through Drizzle: a transaction commits or rolls back as a whole, and its statements outlive a rollback', async () => {
    const db = drizzle(statements as unknown as PGlite);
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into notes (body) values (${'in-tx'})`);
      const seen = await tx.execute<{ body: string }>(sql`select body from notes where body = ${'in-tx'}`);
      expect(seen.rows).toEqual([{ body: 'in-tx' }]);
    });
    const failed = await db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into notes (body) values (${'rolled-back'})`);
        await tx.execute(sql`select body from notes where body = ${'kept-after-rollback'}`);
        await tx.execute(sql`insert into notes (body) values (${'one'})`); // unique violation: the whole transaction goes
      })
      .catch((caught: unknown) => caught);
    expect(failed).toBeInstanceOf(Error);
    const bodies = await db.execute<{ body: string }>(sql`select body from notes where body in (${'in-tx'}, ${'rolled-back'}) order by body`);
    expect(bodies.rows).toEqual([{ body: 'in-tx' }]);
    // The statement parsed inside the rolled-back transaction is still the session's.
    expect((await db.execute(sql`select body from notes where body = ${'kept-after-rollback'}`)).rows).toEqual([]);
    // Nested transactions are savepoints.
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into notes (body) values (${'outer'})`);
      await tx.transaction(async (inner) => inner.execute(sql`insert into notes (body) values (${'inner'})`).then(() => inner.rollback())).catch(() => undefined);
    });
    expect((await db.execute(sql`select body from notes where body in ('outer', 'inner')`)).rows).toEqual([{ body: 'outer' }]);
  });

  it('delivers notifications raised by its queries to PGlite’s listeners, after commit only', async () => {
    const received: string[] = [];
    await client.listen('statements_test', (payload) => received.push(payload));
    await statements.query("select pg_notify('statements_test', $1)", ['outside']);
    await expect.poll(() => received).toEqual(['outside']);
    const db = drizzle(statements as unknown as PGlite);
    await db
      .transaction(async (tx) => {
        await tx.execute(sql`select pg_notify('statements_test', ${'rolled back'})`);
        throw new Error('abandon');
      })
      .catch(() => undefined);
    await db.transaction(async (tx) => tx.execute(sql`select pg_notify('statements_test', ${'committed'})`));
    await expect.poll(() => received).toEqual(['outside', 'committed']);
  });
});
