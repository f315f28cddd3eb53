import { createTestDatabase } from '@svc/db/testing';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as schema from './fixtures/schema.js';

/**
 * The queue's test tables, created from the very table factories the services use (fixtures/schema.ts),
 * by drizzle-kit at run time: a committed copy of their SQL would restate the services' migrations and
 * could drift from the factories. The folder is named by a hash of the SQL, so a changed factory gets
 * a new folder (and a new template database) instead of a stale one.
 */
async function fixtureMigrationsFolder(): Promise<string> {
  const statements = await generateMigration(generateDrizzleJson({}), generateDrizzleJson(schema));
  // The migrator creates the schema first, for its own journal table.
  const sql = statements.map((statement) => statement.replace(/^CREATE SCHEMA "/, 'CREATE SCHEMA IF NOT EXISTS "')).join('\n--> statement-breakpoint\n');
  const folder = join(tmpdir(), `svc-outbox-test-migrations-${createHash('sha256').update(sql).digest('hex').slice(0, 12)}`);
  if (existsSync(folder)) return folder;
  // Written under a private name and renamed into place: parallel test files never read a half-written folder.
  const building = `${folder}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(join(building, 'meta'), { recursive: true });
  writeFileSync(join(building, '0000_outbox_test.sql'), sql);
  const journal = { version: '7', dialect: 'postgresql', entries: [{ idx: 0, version: '7', when: 0, tag: '0000_outbox_test', breakpoints: true }] };
  writeFileSync(join(building, 'meta', '_journal.json'), JSON.stringify(journal));
  try {
    renameSync(building, folder);
  } catch (error) {
    // Another test file won the race with the same content.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(folder)) throw error;
  }
  return folder;
}

/** `databaseUrl`: a server of the test's own (one it restarts); default DATABASE_URL, else embedded. */
export async function createQueueTestDatabase(options: { databaseUrl?: string; idleInTransactionTimeoutMs?: number } = {}) {
  return createTestDatabase({ migrationsFolder: await fixtureMigrationsFolder(), schemaName: 'outbox_test', schema, ...options });
}
