import cors from '@fastify/cors';
import type { Database } from '@svc/db';
import { createBaseApp, type ServiceApp } from '@svc/service-kit';
import type { Redis } from 'ioredis';
import type { FxConfig } from './config.js';
import type { FxDatabaseSchema } from './db/schema.js';
import { limitsConfiguration } from './domain/limits/plans.js';
import { isDemoData } from './domain/rates/demo-seed.js';
import { jsonRateSource, RatePoller } from './domain/pollers/rate-poller.js';
import { ResponseCache } from './domain/response-cache.js';
import { registerRateLimits } from './plugins/rate-limits.js';
import { adminRoutes } from './routes/admin.js';
import { fxHealthRoute } from './routes/health.js';
import { adminPriceRoutes, priceRoutes } from './routes/prices.js';
import { pricingRoutes } from './routes/pricing.js';
import { ratesRoutes } from './routes/rates.js';

export const SERVICE_NAME = 'fx';
export const SERVICE_VERSION = '0.1.0';
export const HEALTH_PATH = '/api/v1/health';

export interface FxAppDependencies {
  config: FxConfig;
  database: Database<FxDatabaseSchema>;
  /** null on the embedded default: in-memory stores stand in. */
  redis: Redis | null;
  /** AES-256-GCM key for secrets read back later (rate-alert signing secrets). */
  secretsKey: Buffer;
  clock?: () => Date;
  /** Redis key prefix of the rate-limit counters (tests isolate themselves with a random one). */
  rateLimitKeyPrefix?: string;
}

/** The fx app, not listening: server.ts listens, tests use app.inject(). The caller owns the dependencies. */
export async function buildApp(dependencies: FxAppDependencies): Promise<ServiceApp> {
  const { config, database, redis } = dependencies;
  const clock = dependencies.clock ?? (() => new Date());
  const app = await createBaseApp({
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    logLevel: config.LOG_LEVEL,
    openapi: {
      title: 'Syrian Pound Exchange Rate API',
      description: 'Official (CBS) and parallel-market Syrian pound rates, USD cross rates, history, crypto and gold prices. Base path /api/v1.',
      securitySchemes: { adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: 'FX_ADMIN_TOKEN (admin API off when unset)' } },
    },
    healthPath: HEALTH_PATH,
    database,
    redis,
    trustProxy: config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false,
    registerHealthRoute: false,
  });
  const limits = limitsConfiguration(config);
  const cache = new ResponseCache(redis);
  await cache.start();
  const rateLimits = await registerRateLimits(app, { limits, redis, clock, keyPrefix: dependencies.rateLimitKeyPrefix });
  app.addHook('onClose', async () => {
    rateLimits.close();
    await cache.stop();
  });
  if (await isDemoData(database.db)) app.log.warn('fx is serving generated DEMO data (embedded default); do not use these rates for decisions');

  // Public data is read by browser dashboards; admin routes are header-token only, never cookies.
  await app.register(cors, { origin: '*', methods: ['GET', 'HEAD'] });
  await app.register(fxHealthRoute, {
    path: HEALTH_PATH,
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    database,
    redis,
    clock,
    staleAfterSeconds: config.FX_STALE_SOURCE_SECONDS,
    isDemo: () => isDemoData(database.db),
    rateLimitStore: () => rateLimits.store(),
  });
  await app.register(ratesRoutes, {
    db: database.db,
    cache,
    clock,
    redenomination: { date: new Date(`${config.FX_REDENOMINATION_DATE}T00:00:00.000Z`), factor: config.FX_REDENOMINATION_FACTOR },
  });
  await app.register(priceRoutes, { db: database.db, cache, clock });
  await app.register(pricingRoutes, { limits });
  const pollers = (
    [
      ['CBS', config.FX_POLL_CBS_URL],
      ['MARKET', config.FX_POLL_MARKET_URL],
    ] as const
  ).flatMap(([source, url]) =>
    url
      ? [new RatePoller({ adapter: jsonRateSource(source, url), db: database.db, clock, log: app.log, intervalMs: config.FX_POLL_INTERVAL_SECONDS * 1000, onIngested: () => cache.invalidate() })]
      : [],
  );
  // Polling starts once the server listens (not in app.inject tests that never call ready()).
  app.addHook('onListen', () => pollers.forEach((poller) => poller.start()));
  app.addHook('onClose', async () => {
    await Promise.all(pollers.map((poller) => poller.stop()));
  });
  if (config.FX_ADMIN_TOKEN) {
    await app.register(adminRoutes, { db: database.db, cache, clock, adminToken: config.FX_ADMIN_TOKEN });
    await app.register(adminPriceRoutes, { db: database.db, cache, clock, adminToken: config.FX_ADMIN_TOKEN });
  }
  return app;
}
