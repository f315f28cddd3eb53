import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { migratePostgresDatabase, openDatabase, useBaselineWasmCompilerForPglite, type Database, type MigrationOptions } from '@svc/db';

/**
 * Fresh, migrated databases for tests, one per test file, in milliseconds:
 * - PGlite: migrated once into a data-directory tarball in the temp directory (per set of
 *   migrations and PGlite build), which every call loads into a new instance.
 * - PostgreSQL (DATABASE_URL set): one template database per set of migrations, then
 *   `CREATE DATABASE … TEMPLATE`, dropped `WITH (FORCE)` by `cleanup()`.
 * The template's name carries a hash of the migration files, so a changed migration
 * builds a new template instead of cloning a stale one.
 */
export interface TestDatabase<TSchema extends Record<string, unknown>> {
  database: Database<TSchema>;
  /** The PostgreSQL URL of this test database (null on PGlite), for a second app instance or worker. */
  url: string | null;
  cleanup(): Promise<void>;
}

export interface TestDatabaseOptions<TSchema extends Record<string, unknown>> extends MigrationOptions {
  schema?: TSchema;
  /** Admin connection; defaults to process.env.DATABASE_URL. Unset → PGlite. */
  databaseUrl?: string;
  /** See openDatabase: a test of a restarted server bounds a lost transaction more tightly. */
  idleInTransactionTimeoutMs?: number;
}

function migrationsHash(folder: string): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.sql')).sort()) {
    hash.update(name).update(readFileSync(join(folder, name)));
  }
  hash.update(readFileSync(join(folder, 'meta', '_journal.json')));
  return hash.digest('hex').slice(0, 12);
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * The migrated PGlite data directory as a tarball, made once per set of migrations and PGlite
 * build and kept in the run's scratch directory (the temp directory outside vitest): vitest runs every test file in a fresh process, and
 * booting an empty PGlite (initdb inside WASM) then running every migration cost each file far
 * more than loading the finished data directory does (see docs/decisions/0351).
 */
function snapshotPath(options: MigrationOptions): string {
  // vitest's module runner has no import.meta.resolve; the installed path carries the version.
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const build = createHash('sha256').update(pglite).update(String(statSync(pglite).mtimeMs)).digest('hex').slice(0, 8);
  return join(process.env.SVC_TEST_RUN_DIR ?? tmpdir(), `svc-pglite-${options.schemaName}-${migrationsHash(options.migrationsFolder)}-${build}.tar`);
}

async function buildSnapshot(options: MigrationOptions, path: string): Promise<Buffer> {
  const instance = await PGlite.create();
  try {
    await migrate(drizzle(instance), {
      migrationsFolder: options.migrationsFolder,
      migrationsSchema: options.schemaName,
      migrationsTable: '__drizzle_migrations',
    });
    const tarball = Buffer.from(await (await instance.dumpDataDir('none')).arrayBuffer());
    // Written aside and renamed: a sibling process never reads half a file; two processes that
    // both build it write the same thing and the last rename wins.
    const building = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(building, tarball);
    await rename(building, path);
    return tarball;
  } finally {
    await instance.close();
  }
}

const pgliteSnapshots = new Map<string, Promise<Buffer>>();

function migratedPgliteSnapshot(options: MigrationOptions): Promise<Buffer> {
  // Before the first PGlite of this process compiles its WASM, as openDatabase does for services.
  useBaselineWasmCompilerForPglite();
  const path = snapshotPath(options);
  let snapshot = pgliteSnapshots.get(path);
  if (!snapshot) {
    snapshot = readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      return buildSnapshot(options, path);
    });
    pgliteSnapshots.set(path, snapshot);
  }
  return snapshot;
}

async function ensurePostgresTemplate(admin: postgres.Sql, adminUrl: string, options: MigrationOptions): Promise<string> {
  const templateName = `svc_tpl_${options.schemaName}_${migrationsHash(options.migrationsFolder)}`;
  // Test files run in parallel worker processes: one builds the template, the others wait on the lock.
  const lockName = `svc:test-template:${templateName}`;
  await admin`select pg_advisory_lock(hashtext(${lockName}))`;
  try {
    const existing = await admin`select 1 from pg_database where datname = ${templateName}`;
    if (existing.length === 0) {
      // Built under a temporary name and renamed when complete, so a crash never leaves a half-migrated template.
      const buildingName = `${templateName}_building_${randomBytes(4).toString('hex')}`;
      await admin.unsafe(`create database "${buildingName}"`);
      await migratePostgresDatabase(withDatabase(adminUrl, buildingName), options);
      await admin.unsafe(`alter database "${buildingName}" rename to "${templateName}"`);
    }
  } finally {
    await admin`select pg_advisory_unlock(hashtext(${lockName}))`;
  }
  return templateName;
}

async function createFromTemplate(admin: postgres.Sql, name: string, templateName: string): Promise<void> {
  // CREATE DATABASE … TEMPLATE fails while another session is connected to the template;
  // that only happens for an instant while a sibling worker checks it, so retry briefly.
  for (let attempt = 0; ; attempt += 1) {
    try {
      await admin.unsafe(`create database "${name}" template "${templateName}"`);
      return;
    } catch (error) {
      if (attempt >= 20 || !String((error as Error).message).includes('being accessed by other users')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export async function createTestDatabase<TSchema extends Record<string, unknown> = Record<string, never>>(
  options: TestDatabaseOptions<TSchema>,
): Promise<TestDatabase<TSchema>> {
  const adminUrl = options.databaseUrl ?? process.env.DATABASE_URL;
  const common = { migrationsFolder: options.migrationsFolder, schemaName: options.schemaName, ...(options.schema ? { schema: options.schema } : {}) };

  if (!adminUrl) {
    const snapshot = await migratedPgliteSnapshot(options);
    const instance = await PGlite.create({ loadDataDir: new Blob([snapshot]) });
    const database = await openDatabase<TSchema>({ ...common, driver: 'pglite', instance, skipMigrations: true });
    return { database, url: null, cleanup: () => database.close() };
  }

  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  try {
    const templateName = await ensurePostgresTemplate(admin, adminUrl, options);
    const name = `svc_test_${options.schemaName}_${randomBytes(6).toString('hex')}`;
    await createFromTemplate(admin, name, templateName);
    const url = withDatabase(adminUrl, name);
    const database = await openDatabase<TSchema>({ ...common, driver: 'postgres', url, skipMigrations: true, maxConnections: 5, ...(options.idleInTransactionTimeoutMs ? { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs } : {}) });
    return {
      database,
      url,
      async cleanup() {
        await database.close();
        const dropper = postgres(adminUrl, { max: 1, onnotice: () => undefined });
        try {
          await dropper.unsafe(`drop database if exists "${name}" with (force)`);
        } finally {
          await dropper.end({ timeout: 5 });
        }
      },
    };
  } finally {
    await admin.end({ timeout: 5 });
  }
}
export { describeEmbeddedOnly, describeNeeding, itEmbeddedOnly, itNeeding } from './server-requirements.js';
export { startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';
