import { parseArgs } from 'node:util';
import { createServiceDependencies, runCli, UsageError } from '@svc/service-kit';
import { loadIdentityConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema, type IdentityExecutor } from './db/schema.js';
import { createPortalUser, createTenant, setTenantStatus } from './domain/tenants.js';

const HELP = `usage: pnpm --filter @svc/identity cli <command> [flags]

commands:
  tenant:create --name <name> --admin-email <email> --admin-password <password>
                                   create a tenant and its first PartnerAdmin -> {"tenantId","adminUserId"}
  tenant:disable --id <tenantId>   every user, client and token of the tenant gets 403 ACCOUNT_DISABLED
  tenant:enable --id <tenantId>    undo tenant:disable
  user:create --tenant <tenantId> --email <email> --password <password> --role PartnerAdmin
                                   add a portal user -> {"userId"}

Prints one JSON object on stdout; on error one line on stderr and exit code 1.
Uses DATABASE_URL, or the embedded database in DATA_DIR (stop the service first: it holds that database).`;

interface Command {
  flags: string[];
  run: (db: IdentityExecutor, flags: Record<string, string>, now: Date) => Promise<unknown>;
}

const COMMANDS: Record<string, Command> = {
  'tenant:create': {
    flags: ['name', 'admin-email', 'admin-password'],
    run: (db, flags, now) => db.transaction((tx) => createTenant(tx, { name: flags.name!, adminEmail: flags['admin-email']!, adminPassword: flags['admin-password']! }, now)),
  },
  'tenant:disable': { flags: ['id'], run: (db, flags, now) => db.transaction((tx) => setTenantStatus(tx, flags.id!, 'disabled', now)) },
  'tenant:enable': { flags: ['id'], run: (db, flags, now) => db.transaction((tx) => setTenantStatus(tx, flags.id!, 'active', now)) },
  'user:create': {
    flags: ['tenant', 'email', 'password', 'role'],
    run: (db, flags, now) => db.transaction((tx) => createPortalUser(tx, { tenantId: flags.tenant!, email: flags.email!, password: flags.password!, role: flags.role! }, now)),
  },
};

/** Flags are checked before the database is opened: a typo costs nothing and changes nothing. */
function parseCommand(argv: string[]): { name: string; command: Command; flags: Record<string, string> } | 'help' {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') return 'help';
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(', ')} (--help for usage)`);
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: rest, options: Object.fromEntries(command.flags.map((flag) => [flag, { type: 'string' as const }])), strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message}`);
  }
  const flags: Record<string, string> = {};
  for (const flag of command.flags) {
    const value = values[flag];
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${name}: --${flag} is required`);
    flags[flag] = value;
  }
  return { name, command, flags };
}

await runCli('identity cli', async (argv) => {
  const parsed = parseCommand(argv);
  if (parsed === 'help') {
    process.stdout.write(`${HELP}\n`);
    return undefined;
  }
  const config = loadIdentityConfig(process.env);
  const dependencies = await createServiceDependencies({ config, schemaName, migrationsFolder, schema: databaseSchema });
  try {
    return await parsed.command.run(dependencies.database.db, parsed.flags, new Date());
  } finally {
    await dependencies.close();
  }
});
