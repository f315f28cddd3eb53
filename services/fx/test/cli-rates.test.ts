import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectCliFailure, runCliProcess } from '@svc/service-kit/testing';
import { createServiceDependencies } from '@svc/service-kit';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadFxConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));
const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'fx-cli-rates-')) };
// pnpm runs `pnpm --filter @svc/fx cli …` inside services/fx and says where the user was in INIT_CWD.
const cliFrom = (userDirectory: string, ...args: string[]) => runCliProcess({ cwd: serviceDir, args, env: { ...env, INIT_CWD: userDirectory } });

describe('fx operator CLI: seed and import (embedded database)', () => {
  it('seeds an empty database once, then refuses without changing anything', async () => {
    const first = await cliFrom(repositoryRoot, 'seed', '--days', '3');
    expect(first.stderr).toBe('');
    const seeded = JSON.parse(first.stdout) as { rates: number; days: number };
    expect(seeded).toMatchObject({ command: 'seed', demo: true, days: 3, rates: 3 * 18 * 2 });
    expectCliFailure(await cliFrom(repositoryRoot, 'seed'), new RegExp(`already holds ${seeded.rates} rate observations.*nothing was changed`));
    // Still exactly the first seed's rows: the refusal said the same count again.
    expectCliFailure(await cliFrom(repositoryRoot, 'seed', '--days', '1'), new RegExp(`already holds ${seeded.rates} rate observations`));
  });

  it('imports the shipped sample with a path relative to the directory the user ran pnpm in', async () => {
    const imported = await cliFrom(repositoryRoot, 'import', '--file', 'services/fx/samples/rates.csv');
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout)).toEqual({ command: 'import', file: join(repositoryRoot, 'services/fx/samples/rates.csv'), rows: 5, batches: 2 });
    const fromServiceFolder = await cliFrom(serviceDir, 'import', '--file', 'samples/rates.csv', '--force');
    expect(JSON.parse(fromServiceFolder.stdout)).toMatchObject({ file: join(serviceDir, 'samples/rates.csv'), rows: 5 });
  });

  it('publishes the seed and the imports to live streams as the admin API does', async () => {
    const dependencies = await createServiceDependencies({ config: loadFxConfig({ ...env, LOG_LEVEL: 'silent' }), schemaName, migrationsFolder });
    try {
      const events = await dependencies.database.rows<{ kind: string; payload: { marketRates?: { currency: string }[]; cbsRates?: unknown[]; prices?: unknown } }>(sql`select kind, payload from fx.stream_events order by id`);
      // Seed: CBS and MARKET rates, crypto, gold; each import: one event per source it wrote.
      expect(events.map((event) => event.kind)).toEqual(['rates', 'rates', 'crypto', 'gold', 'rates', 'rates', 'rates', 'rates']);
      expect(events[1]?.payload.marketRates?.length).toBe(18);
      expect(events.at(-1)?.payload.marketRates?.map((rate) => rate.currency).sort()).toEqual(expect.arrayContaining(['USD']));
    } finally {
      await dependencies.close();
    }
  });

  it('names the resolved path when the file cannot be read', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'fx-cli-user-'));
    expectCliFailure(await cliFrom(elsewhere, 'import', '--file', 'rates.csv'), new RegExp(`cannot read ${join(elsewhere, 'rates.csv')}: no such file`));
  });
});
