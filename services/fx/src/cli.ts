import { readFile } from 'node:fs/promises';
import { loadLatestCrypto } from './domain/prices/latest-prices.js';
import { GOLD_KARATS, GOLD_UNITS } from './domain/prices/ingest-prices.js';
import { resolveUserPath, runServiceCli, UsageError, type CliCommand, type CliFlags } from '@svc/service-kit';
import type { FxConfig } from './config.js';
import { createApiClient, deactivateClient, rotateClientSecret, setClientEmail, setClientPlan } from './domain/clients/api-clients.js';
import type { FxExecutor } from './db/executor.js';
import { rateAlertListener } from './domain/alerts/evaluate-alerts.js';
import { importRatesCsv } from './domain/rates/csv-import.js';
import { countRateObservations, seedDemoData } from './domain/rates/demo-seed.js';
import { DEMO_DAYS, demoSeedOptions } from './domain/rates/embedded-first-start.js';
import { fxRuntime } from './service-runtime.js';
import { createLiveRecorder } from './domain/live/live-recorder.js';
import { loadSourcesFile } from './sources/sources-file.js';
import { SourceLease } from './workers/source-lease.js';
import { SourceRunner } from './workers/source-runner.js';
import { SUPPORTED_CURRENCIES } from './domain/rates/currencies.js';
import { RATE_SOURCES } from './domain/rates/rate-types.js';

const HELP = `usage: pnpm --filter @svc/fx cli <command> [flags]

commands:
  seed [--days N]                          load the generated demo history into an empty database
  import --file rates.csv [--force]        import rates (CSV: source,currency,buy,sell,mid,timestampUtc;
                                           a relative path is read from the directory you ran pnpm in;
                                           services/fx/samples/rates.csv is an example)
  sources:test --name <source>             fetch one source of FX_SOURCES_FILE once and print the quotes it
                                           would give and the prices they would make, without ingesting
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
const liveRecorderOf = (config: FxConfig) => createLiveRecorder({ date: new Date(`${config.FX_REDENOMINATION_DATE}T00:00:00.000Z`), factor: config.FX_REDENOMINATION_FACTOR });
const silentLog = { warn: () => undefined, error: () => undefined };

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
        const now = new Date();
        const result = await seedDemoData(tx, demoSeedOptions(config, now, days));
        // Open live streams (and resumes) see the seeded values as they would an admin write.
        const live = liveRecorderOf(config);
        for (const kind of RATE_SOURCES) await live.ratesChanged(tx, { kind, currencies: Object.keys(SUPPORTED_CURRENCIES) }, now);
        await live.cryptoChanged(tx, (await loadLatestCrypto(tx)).map((price) => price.symbol), now);
        await live.goldChanged(tx, GOLD_UNITS.flatMap((unit) => GOLD_KARATS.map((karat) => ({ unit, karat }))), now);
        return result;
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
      const imported = await db.transaction((tx) => importRatesCsv(tx, contents, { force: flags.force === true, now: new Date(), onRateChanged, live: liveRecorderOf(config) }));
      return { command: 'import', file, ...imported };
    },
  },
  'sources:test': {
    flags: { name: 'string' },
    required: ['name'],
    async run({ db, config }, flags) {
      if (!config.FX_SOURCES_FILE) throw new UsageError('FX_SOURCES_FILE is not set');
      const sources = await loadSourcesFile(resolveUserPath(config.FX_SOURCES_FILE), process.env).catch((error: Error) => {
        throw new UsageError(error.message);
      });
      const runner = new SourceRunner({
        sources,
        db,
        clock: () => new Date(),
        log: silentLog,
        live: liveRecorderOf(config),
        onRateChanged: rateAlertListener(config.ALERT_RETRY_SCHEDULE_MS.length),
        onIngested: async () => {},
        allowPrivateTargets: config.FX_SOURCES_ALLOW_PRIVATE_TARGETS,
        timeoutMs: config.FX_SOURCES_TIMEOUT_MS,
        // Never taken: sources:test fetches once without the fleet's lease and ingests nothing.
        lease: new SourceLease(db, config.FX_SOURCES_LEASE_SECONDS),
      });
      try {
        const { quotes, combined } = await runner.testSource(text(flags, 'name')).catch((error: Error) => {
          throw new UsageError(`${text(flags, 'name')}: ${error.message}`);
        });
        return {
          command: 'sources:test',
          name: text(flags, 'name'),
          ingested: false,
          quotes: quotes.map((quote) => ({ ...quote, observedAt: quote.observedAt.toISOString() })),
          wouldServe: combined.served.map((price) => ({ price: price.key, value: price.value, buy: price.buy, sell: price.sell, observedAt: price.observedAt.toISOString() })),
          withheld: combined.withheld,
        };
      } finally {
        await runner.stop();
      }
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
