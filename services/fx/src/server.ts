import { runService } from '@svc/service-kit';
import { buildApp, SERVICE_NAME } from './app.js';
import { loadFxConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';

await runService({
  name: SERVICE_NAME,
  loadConfig: () => loadFxConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
  buildApp,
});
