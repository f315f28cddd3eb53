import { sql } from 'drizzle-orm';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, openDatabase, resolveDataDir } from '../src/index.js';
import { childScript, migrationOptions } from './helpers.js';

const tempDirs: string[] = [];
function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-db-'));
  tempDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function runChild(dataDir: string, holdMs = 0) {
  return spawnSync(process.execPath, ['--import', 'tsx', childScript, dataDir, migrationOptions.migrationsFolder, String(holdMs)], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('embedded PGlite database', () => {
  it('persists data across a close and reopen, and re-running migrations is a no-op', async () => {
    const dataDir = tempDataDir();
    const first = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    expect(first.driver).toBe('pglite');
    expect(first.location).toBe(join(dataDir, 'dbtest'));
    await first.rows(sql`insert into dbtest.notes (body) values ('kept')`);
    await first.close();

    const second = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    const notes = await second.rows<{ body: string }>(sql`select body from dbtest.notes`);
    const applied = await second.rows<{ count: number }>(sql`select count(*)::int as count from dbtest.__drizzle_migrations`);
    await second.close();
    expect(notes).toEqual([{ body: 'kept' }]);
    expect(applied).toEqual([{ count: 1 }]);
  });

  it('holds a lock file with the owner pid while open and removes it on close', async () => {
    const dataDir = tempDataDir();
    const database = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    const lockPath = join(dataDir, 'dbtest', 'owner.lock');
    expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    await database.close();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('refuses a second opener in the same process with a message naming the owner', async () => {
    const dataDir = tempDataDir();
    const database = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    try {
      await expect(openDatabase({ driver: 'pglite', dataDir, ...migrationOptions })).rejects.toThrow(DataDirLockedError);
      await expect(openDatabase({ driver: 'pglite', dataDir, ...migrationOptions })).rejects.toThrow(
        new RegExp(`in use by process ${process.pid}.*DATABASE_URL`),
      );
    } finally {
      await database.close();
    }
  });

  it('refuses another process while the directory is owned, and lets it in afterwards', async () => {
    const dataDir = tempDataDir();
    const database = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    await database.rows(sql`insert into dbtest.notes (body) values ('owned by the parent')`);
    const refused = runChild(dataDir);
    expect(refused.status).toBe(3);
    expect(refused.stdout).toContain(`in use by process ${process.pid}`);
    await database.close();

    const allowed = runChild(dataDir);
    expect(allowed.stdout).toBe('opened\n');
    expect(allowed.status).toBe(0);
    const reopened = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    expect(await reopened.rows(sql`select body from dbtest.notes`)).toEqual([{ body: 'owned by the parent' }]);
    await reopened.close();
  });

  it('refuses this process while a child owns the directory', async () => {
    const dataDir = tempDataDir();
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, dataDir, migrationOptions.migrationsFolder, '15000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await expect(openDatabase({ driver: 'pglite', dataDir, ...migrationOptions })).rejects.toThrow(`in use by process ${child.pid}`);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    // The killed owner left its lock behind; it is stale now and taken over.
    const database = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    expect(await database.ping()).toBe(true);
    await database.close();
  });

  it('takes over a stale lock left by a process that no longer exists', async () => {
    const dataDir = tempDataDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dataDir, 'dbtest'), { recursive: true });
    writeFileSync(join(dataDir, 'dbtest', 'owner.lock'), JSON.stringify({ pid: Number(gone.stdout), bootId: null, hostname: (await import('node:os')).hostname(), startedAt: '' }));
    const database = await openDatabase({ driver: 'pglite', dataDir, ...migrationOptions });
    expect(JSON.parse(readFileSync(join(dataDir, 'dbtest', 'owner.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
    await database.close();
  });

  it('pings true while open and false after close', async () => {
    const database = await openDatabase({ driver: 'pglite', dataDir: ':memory:', ...migrationOptions });
    expect(await database.ping()).toBe(true);
    await database.close();
    expect(await database.ping()).toBe(false);
  });
});

describe('resolveDataDir', () => {
  it('defaults to .data at the repository root whatever the working directory', () => {
    const expected = join(new URL('../../..', import.meta.url).pathname, '.data');
    expect(resolveDataDir(undefined, '/tmp')).toBe(expected.replace(/\/$/, ''));
    expect(resolveDataDir('', '/')).toBe(expected.replace(/\/$/, ''));
  });
  it('resolves a relative DATA_DIR against the working directory and keeps an absolute one', () => {
    expect(resolveDataDir('state', '/srv/app')).toBe('/srv/app/state');
    expect(resolveDataDir('/var/lib/svc', '/srv/app')).toBe('/var/lib/svc');
  });
});
