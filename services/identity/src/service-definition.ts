import { buildApp, SERVICE_NAME } from './app.js';
import { loadIdentityConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';

/** What runService needs to run the identity API: the server's entry point, and benches that run it with a dependency replaced. */
export const identityService = {
  name: SERVICE_NAME,
  loadConfig: () => loadIdentityConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
  buildApp,
};
