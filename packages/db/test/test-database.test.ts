import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migratePostgresDatabase } from '../src/index.js';
import { createTestDatabase, describeNeeding, itNeeding } from '../testing/index.js';
import { migrationOptions } from './helpers.js';

describe('createTestDatabase', () => {
  it('gives each caller its own migrated database', async () => {
    const [a, b] = await Promise.all([createTestDatabase(migrationOptions), createTestDatabase(migrationOptions)]);
    try {
      expect(a.database.driver).toBe(process.env.DATABASE_URL ? 'postgres' : 'pglite');
      await a.database.rows(sql`insert into dbtest.notes (body) values ('only in a')`);
      expect(await a.database.rows(sql`select body from dbtest.notes`)).toEqual([{ body: 'only in a' }]);
      expect(await b.database.rows(sql`select body from dbtest.notes`)).toEqual([]);
    } finally {
      await Promise.all([a.cleanup(), b.cleanup()]);
    }
  });

  itNeeding('DATABASE_URL')('drops the PostgreSQL test database on cleanup', async () => {
    const test = await createTestDatabase(migrationOptions);
    const name = new URL(test.url!).pathname.slice(1);
    await test.cleanup();
    const admin = postgres(process.env.DATABASE_URL!, { max: 1 });
    const remaining = await admin`select 1 from pg_database where datname = ${name}`;
    await admin.end();
    expect(remaining.length).toBe(0);
  });
});

describeNeeding('DATABASE_URL')('migrations on PostgreSQL', () => {
  it('are safe when several instances start at once (advisory lock)', async () => {
    const adminUrl = process.env.DATABASE_URL!;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
    const name = `svc_test_concurrent_${randomBytes(4).toString('hex')}`;
    await admin.unsafe(`create database "${name}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    try {
      await Promise.all(Array.from({ length: 4 }, () => migratePostgresDatabase(url.toString(), migrationOptions)));
      const check = postgres(url.toString(), { max: 1 });
      const applied = await check`select count(*)::int as count from dbtest.__drizzle_migrations`;
      const tables = await check`select count(*)::int as count from information_schema.tables where table_schema = 'dbtest' and table_name = 'notes'`;
      await check.end();
      expect(applied[0]?.count).toBe(1);
      expect(tables[0]?.count).toBe(1);
    } finally {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});
