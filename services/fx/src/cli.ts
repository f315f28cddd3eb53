import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createServiceDependencies, runCli, UsageError } from '@svc/service-kit';
import { loadFxConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';
import { createApiClient, deactivateClient, rotateClientSecret, setClientPlan } from './domain/clients/api-clients.js';
import type { FxExecutor } from './domain/rates/ingest-rates.js';
import { importRatesCsv } from './domain/rates/csv-import.js';
import { seedDemoData } from './domain/rates/demo-seed.js';
import { DEMO_DAYS, demoSeedOptions } from './domain/rates/embedded-first-start.js';

const HELP = `usage: pnpm --filter @svc/fx cli <command> [flags]

commands:
  seed [--days N]                          load the generated demo history
  import --file rates.csv [--force]        import rates (CSV: source,currency,buy,sell,mid,timestampUtc)
  client:create --name <name> --plan <Free|Starter|Professional|Enterprise>
                                           -> {"id","publicKey","privateKey"} (the private key is shown once)
  client:rotate-secret --id <clientId>     a new private key; the old one stops working
  client:deactivate --id <clientId>        its keys get 401 from now on
  client:set-plan --id <clientId> --plan <plan>

Prints one JSON object on stdout; on error one line on stderr and exit code 1.
Uses DATABASE_URL, or the embedded database in DATA_DIR (stop the service first: it holds that database).`;

type Flags = Record<string, string | boolean | undefined>;
interface Command {
  flags: Record<string, 'string' | 'boolean'>;
  required: string[];
  run: (db: FxExecutor, flags: Flags, context: { config: ReturnType<typeof loadFxConfig> }) => Promise<unknown>;
}

const text = (flags: Flags, name: string) => String(flags[name]);

const COMMANDS: Record<string, Command> = {
  seed: {
    flags: { days: 'string' },
    required: [],
    async run(db, flags, { config }) {
      const days = flags.days === undefined ? DEMO_DAYS : Number(flags.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650) throw new UsageError('--days must be an integer from 1 to 3650');
      const seeded = await db.transaction((tx) => seedDemoData(tx, demoSeedOptions(config, new Date(), days)));
      return { command: 'seed', demo: true, ...seeded };
    },
  },
  import: {
    flags: { file: 'string', force: 'boolean' },
    required: ['file'],
    async run(db, flags) {
      const contents = await readFile(text(flags, 'file'), 'utf8');
      const imported = await db.transaction((tx) => importRatesCsv(tx, contents, { force: flags.force === true, now: new Date() }));
      return { command: 'import', file: flags.file, ...imported };
    },
  },
  'client:create': {
    flags: { name: 'string', plan: 'string' },
    required: ['name', 'plan'],
    run: (db, flags) => db.transaction((tx) => createApiClient(tx, { name: text(flags, 'name'), plan: text(flags, 'plan') }, new Date())),
  },
  'client:rotate-secret': { flags: { id: 'string' }, required: ['id'], run: (db, flags) => rotateClientSecret(db, text(flags, 'id')) },
  'client:deactivate': { flags: { id: 'string' }, required: ['id'], run: (db, flags) => deactivateClient(db, text(flags, 'id')) },
  'client:set-plan': { flags: { id: 'string', plan: 'string' }, required: ['id', 'plan'], run: (db, flags) => setClientPlan(db, text(flags, 'id'), text(flags, 'plan')) },
};

/** Flags are checked before the database is opened: a typo costs nothing and changes nothing. */
function parseCommand(argv: string[]): { command: Command; flags: Flags } | 'help' {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') return 'help';
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(', ')} (--help for usage)`);
  let flags: Flags;
  try {
    flags = parseArgs({ args: rest, options: Object.fromEntries(Object.entries(command.flags).map(([flag, type]) => [flag, { type }])), strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message}`);
  }
  for (const flag of command.required) {
    if (typeof flags[flag] !== 'string' || String(flags[flag]).trim() === '') throw new UsageError(`${name}: --${flag} is required`);
  }
  return { command, flags };
}

await runCli('fx cli', async (argv) => {
  const parsed = parseCommand(argv);
  if (parsed === 'help') {
    process.stdout.write(`${HELP}\n`);
    return undefined;
  }
  const config = loadFxConfig(process.env);
  const dependencies = await createServiceDependencies({ config, schemaName, migrationsFolder, schema: databaseSchema });
  try {
    return await parsed.command.run(dependencies.database.db, parsed.flags, { config });
  } finally {
    await dependencies.close();
  }
});
