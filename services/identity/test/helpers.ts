import { createTestDependencies } from '@svc/service-kit/testing';
import { buildApp } from '../src/app.js';
import { loadIdentityConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { databaseSchema } from '../src/db/schema.js';

/** A fresh identity app on its own database; `close()` releases everything. */
export async function buildTestApp(env: Record<string, string> = {}) {
  const dependencies = await createTestDependencies({ schemaName, migrationsFolder, schema: databaseSchema });
  const config = loadIdentityConfig({ LOG_LEVEL: 'silent', ...env });
  const app = await buildApp({ ...dependencies, config });
  return {
    app,
    dependencies,
    async close() {
      await app.close();
      await dependencies.close();
    },
  };
}
