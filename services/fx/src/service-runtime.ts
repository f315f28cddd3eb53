import { loadFxConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';

/** What every fx process (API, worker, CLI) opens: its config from the environment and its own database schema. */
export const fxRuntime = {
  loadConfig: () => loadFxConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
};
