import { readFile } from 'node:fs/promises';
import { resolveUserPath, runServiceCli, UsageError, type CliCommand, type CliFlags } from '@svc/service-kit';
import type { FxConfig } from './config.js';
import { createApiClient, deactivateClient, rotateClientSecret, setClientEmail, setClientPlan } from './domain/clients/api-clients.js';
import type { FxExecutor } from './db/executor.js';
import { rateAlertListener } from './domain/alerts/evaluate-alerts.js';
import { importRatesCsv } from './domain/rates/csv-import.js';
import { countRateObservations, seedDemoData } from './domain/rates/demo-seed.js';
import { DEMO_DAYS, demoSeedOptions } from './domain/rates/embedded-first-start.js';
import { fxRuntime } from './service-runtime.js';

const HELP = `usage: pnpm --filter @svc/fx cli <command> [flags]

commands:
  seed [--days N]                          load the generated demo history into an empty database
  import --file rates.csv [--force]        import rates (CSV: source,currency,buy,sell,mid,timestampUtc;
                                           a relative path is read from the directory you ran pnpm in;
                                           services/fx/samples/rates.csv is an example)
  client:create --name <name> --plan <Free|Starter|Professional|Enterprise> [--email <address>]
                                           -> {"id","publicKey","privateKey"} (the private key is shown once)
  client:rotate-secret --id <clientId>     a new private key; the old one stops working
  client:deactivate --id <clientId>        its keys get 401 from now on
  client:set-plan --id <clientId> --plan <plan>
  client:set-email --id <clientId> --email <address|none>

Prints one JSON object on stdout; on error one line on stderr and exit code 1.
Uses DATABASE_URL, or the embedded database in DATA_DIR (stop the service first: it holds that database).`;

interface Context {
  db: FxExecutor;
  config: FxConfig;
}

const text = (flags: CliFlags, name: string) => String(flags[name]);

const COMMANDS: Record<string, CliCommand<Context>> = {
  seed: {
    flags: { days: 'string' },
    required: [],
    async run({ db, config }, flags) {
      const days = flags.days === undefined ? DEMO_DAYS : Number(flags.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650) throw new UsageError('--days must be an integer from 1 to 3650');
      const seeded = await db.transaction(async (tx) => {
        // Demo rows are indistinguishable from real ones once stored: never mix them in, never seed twice.
        const existing = await countRateObservations(tx, { lock: true });
        if (existing > 0) throw new UsageError(`the database already holds ${existing} rate observations (the demo history, or real data); seed only loads into an empty database, nothing was changed`);
        return seedDemoData(tx, demoSeedOptions(config, new Date(), days));
      });
      return { command: 'seed', demo: true, ...seeded };
    },
  },
  import: {
    flags: { file: 'string', force: 'boolean' },
    required: ['file'],
    async run({ db, config }, flags) {
      const file = resolveUserPath(text(flags, 'file'));
      const contents = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
      });
      const onRateChanged = rateAlertListener(config.ALERT_RETRY_SCHEDULE_MS.length);
      const imported = await db.transaction((tx) => importRatesCsv(tx, contents, { force: flags.force === true, now: new Date(), onRateChanged }));
      return { command: 'import', file, ...imported };
    },
  },
  'client:create': {
    flags: { name: 'string', plan: 'string', email: 'string' },
    required: ['name', 'plan'],
    run: ({ db }, flags) =>
      db.transaction((tx) => createApiClient(tx, { name: text(flags, 'name'), plan: text(flags, 'plan'), email: flags.email === undefined ? undefined : text(flags, 'email') }, new Date())),
  },
  'client:rotate-secret': { flags: { id: 'string' }, required: ['id'], run: ({ db }, flags) => rotateClientSecret(db, text(flags, 'id')) },
  'client:deactivate': { flags: { id: 'string' }, required: ['id'], run: ({ db }, flags) => deactivateClient(db, text(flags, 'id')) },
  'client:set-email': {
    flags: { id: 'string', email: 'string' },
    required: ['id', 'email'],
    run: ({ db }, flags) => setClientEmail(db, text(flags, 'id'), text(flags, 'email') === 'none' ? null : text(flags, 'email')),
  },
  'client:set-plan': { flags: { id: 'string', plan: 'string' }, required: ['id', 'plan'], run: ({ db }, flags) => setClientPlan(db, text(flags, 'id'), text(flags, 'plan')) },
};

await runServiceCli({
  ...fxRuntime,
  name: 'fx cli',
  help: HELP,
  commands: COMMANDS,
  context: ({ database, config }) => ({ db: database.db, config }),
});
