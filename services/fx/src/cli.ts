import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createServiceDependencies } from '@svc/service-kit';
import { loadFxConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';
import { importRatesCsv } from './domain/rates/csv-import.js';
import { seedDemoData } from './domain/rates/demo-seed.js';
import { DEMO_DAYS, demoSeedOptions } from './domain/rates/embedded-first-start.js';

const USAGE = 'usage: cli seed [--days N] | cli import --file rates.csv [--force]';

/** Operator CLI: one JSON object on stdout; on error one line on stderr, nothing on stdout, exit 1. */
async function main(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({ args: rest, options: { file: { type: 'string' }, days: { type: 'string' }, force: { type: 'boolean' } }, strict: true });
  if (command !== 'seed' && command !== 'import') throw new Error(USAGE);
  const config = loadFxConfig(process.env);
  const dependencies = await createServiceDependencies({ config, schemaName, migrationsFolder, schema: databaseSchema });
  try {
    const db = dependencies.database.db;
    if (command === 'seed') {
      const days = values.days === undefined ? DEMO_DAYS : Number(values.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650) throw new Error('--days must be an integer from 1 to 3650');
      const seeded = await db.transaction((tx) => seedDemoData(tx, demoSeedOptions(config, new Date(), days)));
      return { command, demo: true, ...seeded };
    }
    if (!values.file) throw new Error(`--file is required; ${USAGE}`);
    const text = await readFile(values.file, 'utf8');
    const imported = await db.transaction((tx) => importRatesCsv(tx, text, { force: values.force === true, now: new Date() }));
    return { command, file: values.file, ...imported };
  } finally {
    await dependencies.close();
  }
}

try {
  const result = await main(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  const detail = error instanceof Error ? error.message : String(error);
  const fields = (error as { extensions?: { errors?: { path: string; message: string }[] } }).extensions?.errors;
  process.stderr.write(`fx cli: ${detail}${fields?.length ? ` ${fields.map((field) => `${field.path}: ${field.message}`).join('; ')}` : ''}\n`.replace(/\n(?!$)/g, ' '));
  process.exit(1);
}
