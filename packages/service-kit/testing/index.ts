import { createTestDatabase } from '@svc/db/testing';
import { randomBytes } from 'node:crypto';
import { connectRedis, type ServiceDependencies } from '@svc/service-kit';

/**
 * Dependencies for one test file: its own freshly migrated database (PGlite clone, or a
 * PostgreSQL database cloned from a template when DATABASE_URL is set), the real Redis
 * when REDIS_URL is set, and a random secrets key.
 */
export async function createTestDependencies<TSchema extends Record<string, unknown>>(options: {
  schemaName: string;
  migrationsFolder: string;
  schema?: TSchema;
  /** A PostgreSQL server to create the database on instead of DATABASE_URL's (a test's private one). */
  databaseUrl?: string;
}): Promise<ServiceDependencies<TSchema> & { databaseUrl: string | null }> {
  const testDatabase = await createTestDatabase<TSchema>(options);
  const redis = process.env.REDIS_URL ? await connectRedis(process.env.REDIS_URL) : null;
  let closing: Promise<void> | undefined;
  return {
    database: testDatabase.database,
    databaseUrl: testDatabase.url,
    redis,
    secretsKey: randomBytes(32),
    dataDir: ':memory:',
    close() {
      closing ??= (async () => {
        if (redis) await redis.quit().catch(() => redis.disconnect());
        await testDatabase.cleanup();
      })();
      return closing;
    },
  };
}
export {
  findFreePort,
  isWorkerRunning,
  runCliProcess,
  runServiceProcessToExit,
  spawnWorkerProcess,
  startServiceProcess,
  stopWorkerProcess,
  type ServiceProcess,
  type WorkerProcess,
} from './service-process.js';
export { describeServiceProcess } from './service-process-suite.js';
export { describeBaseApp } from './base-app-suite.js';
export { expectCliFailure } from './cli-expectations.js';
export { expectLintReadyOpenApi, type DocumentedOperation } from './openapi-expectations.js';
export { describeListenerEdges } from './listener-suite.js';
export { rawExchange, type RawExchange } from './raw-exchange.js';
