import { mailBacklog, type MailTransport } from '@svc/mailer';
import { createBaseApp, createSecretBox, type ServiceApp, type ServiceAppDependencies } from '@svc/service-kit';
import type { FxConfig } from './config.js';
import { jobs, type FxDatabaseSchema } from './db/schema.js';
import { createFxMailer } from './domain/mail/fx-mailer.js';
import { rateAlertListener } from './domain/alerts/evaluate-alerts.js';
import { createClientLastUsed } from './domain/clients/last-used.js';
import { limitsConfiguration } from './domain/limits/plans.js';
import { isDemoData } from './domain/rates/demo-seed.js';
import { ResponseCache } from './http/response-cache.js';
import { RATE_LIMIT_HEADER_NAMES, registerRateLimits, type FxRateLimits } from './plugins/rate-limits.js';
import { apiKeysPlugin } from './plugins/api-keys.js';
import { publicCorsPlugin } from './plugins/public-cors.js';
import { adminRoutes } from './routes/admin.js';
import { adminClientRoutes } from './routes/admin-clients.js';
import { clientRoutes } from './routes/client.js';
import { developerRoutes } from './routes/developer.js';
import { createDailyUsage } from './domain/developers/developer-usage.js';
import { fxHealthExtension } from './routes/health.js';
import { adminPriceRoutes, priceRoutes } from './routes/prices.js';
import { pricingRoutes } from './routes/pricing.js';
import { ratesRoutes } from './routes/rates.js';
import { streamRoutes } from './routes/stream.js';
import { referenceRoutes } from './routes/reference.js';
import { createLiveRecorder } from './domain/live/live-recorder.js';
import { alertDeliveryWorkerFor } from './workers/alert-delivery-worker.js';
import { fxMailTransport, fxMailWorkerFor } from './workers/mail-worker.js';
import { startRatePollers } from './workers/rate-poller.js';
import { startStreamHub } from './workers/stream-hub.js';
import type { SourceRunner } from './workers/source-runner.js';
import { startUpstreamSources } from './workers/upstream-sources.js';
import { startOverrideExpiry } from './workers/override-expiry.js';
import { developerPagesPlugin } from './plugins/developer-pages.js';
import { webPagePlugin } from './plugins/web-page.js';

export const SERVICE_NAME = 'fx';
export const SERVICE_VERSION = '0.1.0';
export const HEALTH_PATH = '/api/v1/health';

/** The secrets key seals what is read back later (rate-alert signing secrets). */
export type FxAppDependencies = ServiceAppDependencies<FxConfig, FxDatabaseSchema> & {
  /** Where the sources file's ${VAR} references are read; process.env unless a test gives its own. */
  env?: Record<string, string | undefined>;
  /** The mail transport in place of the configured one (SMTP_URL, else .eml files under $DATA_DIR/fx/mail). */
  mailTransport?: MailTransport;
  /** Certificate authorities the SMTP server's certificate may chain to besides the system's (a private mail server; tests). */
  smtpCa?: string;
};

/** The fx app, not listening: server.ts listens, tests use app.inject(). The caller owns the dependencies. */
export async function buildApp(dependencies: FxAppDependencies): Promise<ServiceApp> {
  const { config, database, redis } = dependencies;
  const clock = dependencies.clock ?? (() => new Date());
  // Filled once the limiter and the sources are set up; health reads them at request time.
  const limiter: { current?: FxRateLimits } = {};
  const upstream: { runner?: SourceRunner | null } = {};
  const mail: { transport?: MailTransport } = {};
  const app = await createBaseApp({
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    config,
    openapi: {
      title: 'Syrian Pound Exchange Rate API',
      description: 'Official (CBS) and parallel-market Syrian pound rates, USD cross rates, history, crypto and gold prices. Base path /api/v1.',
      securitySchemes: {
        adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: 'FX_ADMIN_TOKEN (admin API off when unset)' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Public key svc_pub_… (with X-Api-Secret)' },
        apiSecret: { type: 'apiKey', in: 'header', name: 'X-Api-Secret', description: 'Private key svc_prv_… (with X-Api-Key), shown once at creation' },
        developerSession: { type: 'apiKey', in: 'cookie', name: 'fx_developer_session', description: 'The developer dashboard session (POST /api/v1/developer/login or …/verify)' },
      },
    },
    healthPath: HEALTH_PATH,
    database,
    redis,
    trustProxy: config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false,
    healthExtension: fxHealthExtension({
      database,
      clock,
      staleAfterSeconds: config.FX_STALE_SOURCE_SECONDS,
      isDemo: () => isDemoData(database.db),
      rateLimitStore: () => limiter.current?.store() ?? 'memory',
      upstreams: async () => (await upstream.runner?.upstreams()) ?? { sources: [], stalePrices: [] },
      mail: async () => ({ transport: mail.transport?.kind ?? 'file', ...(await mailBacklog(database.db, jobs)) }),
    }),
  });
  const limits = limitsConfiguration(config);
  const cache = new ResponseCache(redis);
  await cache.start();
  const db = database.db;
  const lastUsed = createClientLastUsed(db, { flushIntervalMs: dependencies.lastUsedFlushMs ?? 10_000, onError: (error) => app.log.warn({ err: error }, 'lastUsedUtc flush failed') });
  lastUsed.start();
  const dailyUsage = createDailyUsage(db, { flushIntervalMs: dependencies.lastUsedFlushMs ?? 10_000, onError: (error) => app.log.warn({ err: error }, 'daily usage flush failed') });
  dailyUsage.batcher.start();
  // Keys first: the limiter picks per-key limits from request.apiClient.
  await app.register(apiKeysPlugin, { db, clock, lastUsed });
  const rateLimits = await registerRateLimits(app, { limits, redis, clock, nowMs: dependencies.clock ? undefined : Date.now, keyPrefix: dependencies.rateLimitKeyPrefix ?? config.RATE_LIMIT_KEY_PREFIX, db, onKeyedData: dailyUsage.record });
  limiter.current = rateLimits;
  const box = createSecretBox(dependencies.secretsKey);
  const policy = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS };
  const onRateChanged = rateAlertListener(config.ALERT_RETRY_SCHEDULE_MS.length);
  const mailer = createFxMailer(config, box);
  const mailTransport = dependencies.mailTransport ?? fxMailTransport(config, app.log, dependencies.smtpCa);
  mail.transport = mailTransport;
  const alertWorker = alertDeliveryWorkerFor(config, { database, secretsKey: dependencies.secretsKey, clock, logger: app.log, metrics: app.metrics, mailer });
  const mailWorker = fxMailWorkerFor(config, { db, mailer, transport: mailTransport, listen: database.listen, clock, logger: app.log, metrics: app.metrics });
  // Like the pollers, the workers start when the server listens (never in app.inject tests).
  if (config.ALERT_WORKER_IN_PROCESS)
    app.addHook('onListen', () => {
      alertWorker.start();
      mailWorker.start();
    });
  const afterRatesChanged = () => alertWorker.wake();
  app.decorate('fxMail', { mailer, worker: mailWorker });
  app.addHook('onClose', async () => {
    await alertWorker.close();
    await mailWorker.stop();
    mailTransport.close();
    await lastUsed.stop();
    await dailyUsage.batcher.stop();
    rateLimits.close();
    await cache.stop();
  });
  if (await isDemoData(database.db)) app.log.warn('fx is serving generated DEMO data (embedded default); do not use these rates for decisions');

  // Public data is read by browser dashboards; admin routes are header-token only, never cookies.
  await app.register(publicCorsPlugin, { methods: ['GET', 'HEAD'], exposedHeaders: [...RATE_LIMIT_HEADER_NAMES, 'ETag', 'X-Correlation-Id'] });
  const redenomination = { date: new Date(`${config.FX_REDENOMINATION_DATE}T00:00:00.000Z`), factor: config.FX_REDENOMINATION_FACTOR };
  const live = createLiveRecorder(redenomination);
  const hub = await startStreamHub(app, { config, database, clock });
  await app.register(ratesRoutes, { db: database.db, cache, clock, redenomination });
  await app.register(referenceRoutes, { db, cache, clock, redenomination });
  await app.register(streamRoutes, { db, hub, clock, redenomination, limits, maxStreamsPerIp: config.FX_STREAM_MAX_PER_IP });
  await app.register(priceRoutes, { db: database.db, cache, clock });
  await app.register(pricingRoutes, { limits });
  // The public rates page (/ and /{lang}), in its own context so its strict headers stay off the API.
  await app.register(webPagePlugin, { root: config.FX_WEB_ROOT });
  await app.register(developerPagesPlugin, { root: config.FX_DEVELOPERS_WEB_ROOT });
  await app.register(clientRoutes, { db, clock, box, policy, limits });
  await app.register(developerRoutes, { db, clock, mailer, alerts: { box, policy, limits, timeoutMs: config.ALERT_DELIVERY_TIMEOUT_MS }, publicBaseUrl: config.PUBLIC_BASE_URL, signup: config.FX_SIGNUP, keyRotationGraceSeconds: config.FX_KEY_ROTATION_GRACE_SECONDS, usage: { daily: dailyUsage, limits, monthWindow: rateLimits.monthWindow } });
  const pollerWiring = {
    config,
    db,
    clock,
    live,
    onRateChanged,
    onIngested: async () => {
      await cache.invalidate();
      afterRatesChanged();
    },
  };
  startRatePollers(app, pollerWiring);
  upstream.runner = await startUpstreamSources(app, pollerWiring, dependencies.env ?? process.env);
  app.decorate('upstreamSources', upstream.runner);
  startOverrideExpiry(app, pollerWiring);
  if (config.FX_ADMIN_TOKEN) {
    await app.register(adminRoutes, { db, cache, clock, adminToken: config.FX_ADMIN_TOKEN, onRateChanged, afterRatesChanged, live });
    await app.register(adminClientRoutes, { db, clock, adminToken: config.FX_ADMIN_TOKEN });
    await app.register(adminPriceRoutes, { db: database.db, cache, clock, adminToken: config.FX_ADMIN_TOKEN, live });
  }
  return app;
}
