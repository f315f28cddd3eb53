import { runService } from '@svc/service-kit';
import { buildApp, SERVICE_NAME } from './app.js';
import { loadIdentityConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';

await runService({
  name: SERVICE_NAME,
  loadConfig: () => loadIdentityConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
  buildApp,
});
