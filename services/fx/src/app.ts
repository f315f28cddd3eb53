import type { Database } from '@svc/db';
import { createBaseApp, type ServiceApp } from '@svc/service-kit';
import type { Redis } from 'ioredis';
import type { FxConfig } from './config.js';
import type { FxDatabaseSchema } from './db/schema.js';

export const SERVICE_NAME = 'fx';
export const SERVICE_VERSION = '0.1.0';

export interface FxAppDependencies {
  config: FxConfig;
  database: Database<FxDatabaseSchema>;
  /** null on the embedded default: in-memory stores stand in. */
  redis: Redis | null;
  /** AES-256-GCM key for secrets read back later (rate-alert signing secrets). */
  secretsKey: Buffer;
  clock?: () => Date;
}

/** The fx app, not listening: server.ts listens, tests use app.inject(). The caller owns the dependencies. */
export async function buildApp(dependencies: FxAppDependencies): Promise<ServiceApp> {
  const app = await createBaseApp({
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    logLevel: dependencies.config.LOG_LEVEL,
    openapi: {
      title: 'Syrian Pound Exchange Rate API',
      description: 'Official (CBS) and parallel-market Syrian pound rates, USD cross rates, history, crypto and gold prices. Base path /api/v1.',
    },
    healthPath: '/api/v1/health',
    database: dependencies.database,
    redis: dependencies.redis,
  });
  return app;
}
