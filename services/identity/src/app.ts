import type { Database } from '@svc/db';
import { createBaseApp, type ServiceApp } from '@svc/service-kit';
import type { Redis } from 'ioredis';
import type { IdentityConfig } from './config.js';
import type { IdentityDatabaseSchema } from './db/schema.js';

export const SERVICE_NAME = 'identity';
export const SERVICE_VERSION = '0.1.0';

export interface IdentityAppDependencies {
  config: IdentityConfig;
  database: Database<IdentityDatabaseSchema>;
  /** null on the embedded default: in-memory stores stand in. */
  redis: Redis | null;
  /** AES-256-GCM key for secrets read back later (webhook signing secrets). */
  secretsKey: Buffer;
  clock?: () => Date;
}

/** The identity app, not listening: server.ts listens, tests use app.inject(). The caller owns the dependencies. */
export async function buildApp(dependencies: IdentityAppDependencies): Promise<ServiceApp> {
  const app = await createBaseApp({
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    logLevel: dependencies.config.LOG_LEVEL,
    openapi: {
      title: 'Identity Verification Partner API',
      description: 'Tenant-scoped identity verification (KYC) for partners. Base path /api/partner/v1.',
    },
    healthPath: '/health',
    database: dependencies.database,
    redis: dependencies.redis,
  });
  return app;
}
