import { runService } from '@svc/service-kit';
import { buildApp, SERVICE_NAME } from './app.js';
import { seedEmbeddedFirstStart } from './domain/rates/embedded-first-start.js';
import { fxRuntime } from './service-runtime.js';

await runService({
  ...fxRuntime,
  name: SERVICE_NAME,
  buildApp: async (dependencies) => {
    // Seeded before the app is built, so its start-up warning and /health see the demo flag.
    await seedEmbeddedFirstStart(dependencies.database.db, dependencies.config, new Date());
    return buildApp(dependencies);
  },
});
