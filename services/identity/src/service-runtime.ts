import { loadIdentityConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';

/** What every identity process (API, worker, CLI) opens: its config from the environment and its own database schema. */
export const identityRuntime = {
  loadConfig: () => loadIdentityConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
};
