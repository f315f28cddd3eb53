import { runService } from '@svc/service-kit';
import { buildApp, SERVICE_NAME } from './app.js';
import { loadFxConfig } from './config.js';
import { migrationsFolder, schemaName } from './db/migrations.js';
import { databaseSchema } from './db/schema.js';
import { seedEmbeddedFirstStart } from './domain/rates/embedded-first-start.js';

await runService({
  name: SERVICE_NAME,
  loadConfig: () => loadFxConfig(process.env),
  schemaName,
  migrationsFolder,
  schema: databaseSchema,
  buildApp: async (dependencies) => {
    // Seeded before the app is built, so its start-up warning and /health see the demo flag.
    await seedEmbeddedFirstStart(dependencies.database.db, dependencies.config, new Date());
    return buildApp(dependencies);
  },
});
