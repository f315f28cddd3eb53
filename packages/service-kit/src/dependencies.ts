import { openDatabase, resolveDataDir, type Database } from '@svc/db';
import type { Redis } from 'ioredis';
import { connectRedis, pingRedis } from './redis.js';
import { loadSecretsKey } from './secrets.js';

/** What a service needs from its environment; built once by server.ts (or the CLI, or tests). */
export interface ServiceDependencies<TSchema extends Record<string, unknown>> {
  database: Database<TSchema>;
  /** null on the embedded default: in-memory stores stand in. */
  redis: Redis | null;
  secretsKey: Buffer;
  dataDir: string;
  /** Closes what this object opened (Redis, then the database), once. */
  close(): Promise<void>;
}

/** What each service's buildApp takes: the environment's dependencies, its parsed config and the knobs tests turn. */
export interface ServiceAppDependencies<TConfig, TSchema extends Record<string, unknown>> extends Pick<ServiceDependencies<TSchema>, 'database' | 'redis' | 'secretsKey'> {
  config: TConfig;
  clock?: () => Date;
  /** Redis key prefix of the rate-limit counters (tests isolate themselves with a random one). */
  rateLimitKeyPrefix?: string;
  /** How often the clients' last-used times are written (default 10 s). */
  lastUsedFlushMs?: number;
}

export interface CommonEnvironment {
  DATABASE_URL?: string | undefined;
  REDIS_URL?: string | undefined;
  DATA_DIR?: string | undefined;
  SECRETS_KEY?: string | undefined;
}

export async function createServiceDependencies<TSchema extends Record<string, unknown>>(options: {
  config: CommonEnvironment;
  schemaName: string;
  migrationsFolder: string;
  schema?: TSchema;
}): Promise<ServiceDependencies<TSchema>> {
  const { config } = options;
  const dataDir = resolveDataDir(config.DATA_DIR);
  const { key: secretsKey } = loadSecretsKey({ configured: config.SECRETS_KEY, dataDir, databaseUrl: config.DATABASE_URL });
  const common = { schemaName: options.schemaName, migrationsFolder: options.migrationsFolder, ...(options.schema ? { schema: options.schema } : {}) };
  const database = config.DATABASE_URL
    ? await openDatabase<TSchema>({ ...common, driver: 'postgres', url: config.DATABASE_URL })
    : await openDatabase<TSchema>({ ...common, driver: 'pglite', dataDir });
  let redis: Redis | null = null;
  try {
    redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL) : null;
  } catch (error) {
    await database.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    database,
    redis,
    secretsKey,
    dataDir,
    close() {
      closing ??= (async () => {
        if (redis) await redis.quit().catch(() => redis?.disconnect());
        await database.close();
      })();
      return closing;
    },
  };
}

export type DependencyStatus = 'ok' | 'down' | 'not_configured';

export interface DependencyHealth {
  status: 'ok' | 'degraded' | 'down';
  checks: {
    database: { status: Exclude<DependencyStatus, 'not_configured'>; driver: Database['driver'] };
    redis: { status: DependencyStatus; store: 'redis' | 'memory' };
  };
}

/** The database is essential (down → 503); Redis lost or absent leaves the service degraded or memory-backed. */
export async function checkDependencies(database: Database<Record<string, unknown>> | Database, redis: Redis | null): Promise<DependencyHealth> {
  const [databaseUp, redisUp] = await Promise.all([database.ping(), redis ? pingRedis(redis) : Promise.resolve(null)]);
  const redisStatus: DependencyStatus = redisUp === null ? 'not_configured' : redisUp ? 'ok' : 'down';
  return {
    status: !databaseUp ? 'down' : redisStatus === 'down' ? 'degraded' : 'ok',
    checks: {
      database: { status: databaseUp ? 'ok' : 'down', driver: database.driver },
      redis: { status: redisStatus, store: redis ? 'redis' : 'memory' },
    },
  };
}
