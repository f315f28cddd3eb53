import cookie from '@fastify/cookie';
import { createAddressMatcher, createBaseApp, createSecretBox, type ServiceApp, type ServiceAppDependencies } from '@svc/service-kit';
import { resolveDataDir } from '@svc/db';
import { createMailTransport, mailSettings, type MailTransport } from '@svc/mailer';
import type { IdentityConfig } from './config.js';
import { createIdentityMailer } from './domain/mail/identity-mailer.js';
import type { IdentityDatabaseSchema } from './db/schema.js';
import { createClientLastUsed } from './domain/access/last-used.js';
import { createCredentialCache, CREDENTIALS_CHANNEL, type CredentialCache } from './domain/common/credential-cache.js';
import { sql } from 'drizzle-orm';
import { authenticationPlugin } from './plugins/authentication.js';
import { portalPagePlugin } from './plugins/portal-page.js';
import { consolePagePlugin } from './plugins/console-page.js';
import { capturePagePlugin } from './plugins/capture-page.js';
import { watchReviewQueue } from './plugins/review-queue-metrics.js';
import { clientCertificatePlugin } from './plugins/client-certificate.js';
import { noStoreByDefaultPlugin } from './plugins/no-store.js';
import { registerIdentityRateLimit } from './plugins/rate-limit.js';
import { captureRoutes, CAPTURE_BASE_PATH } from './routes/capture/capture.js';
import { captureUploadRoutes } from './routes/capture/capture-uploads.js';
import { captureSettingsRoutes } from './routes/partner/capture-settings.js';
import { identityHealthExtension } from './routes/health.js';
import { INTERNAL_BASE_PATH, internalReviewRoutes } from './routes/staff/internal-review.js';
import { registerStaffOpenApi } from './routes/staff/staff-openapi.js';
import { evidenceRoutes } from './routes/partner/evidence.js';
import { oauthClientRoutes } from './routes/partner/oauth-clients.js';
import { verificationRoutes } from './routes/partner/verifications.js';
import { redactionRoutes } from './routes/partner/redaction.js';
import { retentionBacklog } from './domain/redaction/retention-sweep.js';
import { reportRoutes } from './routes/partner/reports.js';
import { webhookRoutes } from './routes/partner/webhooks.js';
import type { EvidenceStorage } from './domain/evidence/evidence-storage.js';
import { createEvidenceKeyRing } from './domain/evidence/evidence-keys.js';
import { createEvidenceVault, type EvidenceVault } from './domain/evidence/evidence-vault.js';
import { createEvidenceStorage, evidenceStorageConfig } from './domain/evidence/storage-config.js';
import { startSpoolSweeper } from './domain/evidence/spool-sweeper.js';
import { armCrashPoint } from './domain/common/crash-points.js';
import { createUploadSlots } from './domain/capture/upload-slots.js';
import { createIdentityWorker, type IdentityWorker } from './workers/identity-worker.js';
import type { ChecksProvider } from './domain/checks/checks-provider.js';
import { configuredChecksProvider } from './domain/checks/configured-provider.js';
import { oauthTokenRoutes } from './routes/partner/oauth-tokens.js';
import { oauthMetadataRoutes } from './routes/partner/oauth-metadata.js';
import { portalRoutes } from './routes/portal/portal.js';
import { portalAccountRoutes } from './routes/portal/portal-account.js';
import { portalTeamRoutes } from './routes/portal/portal-team.js';
import { portalSecondFactorRoutes } from './routes/portal/portal-second-factors.js';
import { relyingPartyOf } from './domain/accounts/second-factors/passkeys.js';

export const SERVICE_NAME = 'identity';
export const SERVICE_VERSION = '0.1.0';
export const API_BASE_PATH = '/api/partner/v1';

/** The secrets key seals what is read back later (webhook signing secrets). */
export interface IdentityAppDependencies extends ServiceAppDependencies<IdentityConfig, IdentityDatabaseSchema> {
  /** Where evidence files live; default from the configuration (EVIDENCE_DIR / EVIDENCE_S3_*). */
  evidenceStorage?: EvidenceStorage;
  /**
   * The evidence vault itself, in place of the encrypting one over evidenceStorage. Only code can
   * pass it (no setting turns encryption off): the encryption bench runs the same build with a
   * vault that stores plaintext, to measure what encryption costs.
   */
  evidenceVault?: EvidenceVault;
  /** The live tenants' automated checks; default none (their cases go to manual review). */
  checksProvider?: ChecksProvider | null;
  /** Receives the app's credential cache (tests wait for its announcements). */
  onCredentialCache?: (cache: CredentialCache) => void;
  /** The mail transport in place of the configured one (SMTP_URL, else .eml files under $DATA_DIR/identity/mail). */
  mailTransport?: MailTransport;
  /** Certificate authorities the SMTP server's certificate may chain to besides the system's (a private mail server; tests). */
  smtpCa?: string;
  /** Receives the app's worker (tests drive it: sweepExpired, runJobs). */
  onWorker?: (worker: IdentityWorker) => void;
}

const securitySchemes = {
  accessToken: { type: 'http', scheme: 'bearer', description: 'Certificate-bound access token svc_at_… from POST /oauth/token; send it with the same client certificate' },
  portalSession: { type: 'http', scheme: 'bearer', description: 'Partner portal session svc_ps_… from POST /portal/login' },
  captureSession: { type: 'http', scheme: 'bearer', description: "End user: the case's one-time session token svc_st_… (POST /api/capture/v1/session only)" },
  captureToken: { type: 'http', scheme: 'bearer', description: 'End user: the capture token svc_ct_… from POST /api/capture/v1/session' },
  portalCookie: { type: 'apiKey', in: 'cookie', name: 'svc_portal_session', description: 'The same portal session, as the cookie set by POST /portal/login' },
  // OpenAPI 3.1's own scheme for a client certificate: required together with accessToken on
  // token-protected routes (the token is bound to the certificate), alone on the OAuth endpoints.
  mutualTLS: {
    type: 'mutualTLS',
    description: 'The registered client certificate: presented in the TLS handshake (direct mutual TLS), or forwarded by the trusted TLS-terminating proxy',
  },
} as const;

/** The identity app, not listening: server.ts listens, tests use app.inject(). The caller owns the dependencies. */
export async function buildApp(dependencies: IdentityAppDependencies): Promise<ServiceApp> {
  const { config, database, redis } = dependencies;
  const clock = dependencies.clock ?? (() => new Date());
  const isTrustedProxy = createAddressMatcher(config.TRUSTED_PROXIES);
  // Before the app: the health endpoint reports on it. Models load once the server listens (below), not here.
  const ownProvider = dependencies.checksProvider === undefined ? await configuredChecksProvider(config) : null;
  // The first health check would wait for the provider's look at its models and ffmpeg (it spawns
  // `ffmpeg -version`): begun now, it runs while the app is built. The provider keeps the answer; health reports it.
  void ownProvider?.status?.().catch(() => undefined);
  const app = await createBaseApp({
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    config,
    openapi: {
      title: 'Identity Verification Partner API',
      description:
        'Tenant-scoped identity verification (KYC) for partners. Base path /api/partner/v1; the end user\'s capture API is under /api/capture/v1. OAuth 2.0 client credentials with certificate-bound tokens (RFC 8705). Scopes: `verifications` for /verifications*, `evidence` for /evidence/*, `webhooks` for /webhooks*, `reports` for /reports/*. Every route is limited to 120 requests per IP per minute.',
      securitySchemes,
      // The operators' routes have their own document (registerStaffOpenApi).
      excludedPrefixes: [INTERNAL_BASE_PATH],
    },
    healthPath: '/health',
    healthExtension: identityHealthExtension(database, async () => {
      if (dependencies.checksProvider !== undefined) return { provider: dependencies.checksProvider ? 'injected' : 'none', ready: null, problems: [] };
      if (!ownProvider) return { provider: 'none', ready: null, problems: [] };
      const status = await ownProvider.status?.();
      return { provider: config.CHECKS_PROVIDER, ready: status?.ready ?? null, problems: status?.problems ?? [] };
    }, () => retentionBacklog(database.db, { now: clock(), undecidedRetentionDays: config.UNDECIDED_RETENTION_DAYS }), () => mailTransport.kind),
    database,
    redis,
    trustProxy: (address: string) => isTrustedProxy(address),
    ...(config.TLS_CERT && config.TLS_KEY ? { https: { cert: config.TLS_CERT, key: config.TLS_KEY, requestCert: true, rejectUnauthorized: false } } : {}),
  });
  const staffOpenApi = await registerStaffOpenApi(app, SERVICE_VERSION);
  const db = database.db;
  const lastUsed = createClientLastUsed(db, { flushIntervalMs: dependencies.lastUsedFlushMs ?? 10_000, onError: (error) => app.log.warn({ err: error }, 'lastUsedAt flush failed') });
  lastUsed.start();
  const credentials = createCredentialCache({
    listen: database.listen,
    notify: async (payload) => {
      await db.execute(sql`select pg_notify(${CREDENTIALS_CHANNEL}, ${payload})`);
    },
    logger: app.log,
  });
  await credentials.start();
  dependencies.onCredentialCache?.(credentials);
  await app.register(noStoreByDefaultPlugin, { prefix: '/api/' });
  // Rate limit first: a flood is turned away before any authentication work.
  const rateLimit = await registerIdentityRateLimit(app, {
    perMinute: config.RATE_LIMIT_PER_MINUTE,
    basePaths: [API_BASE_PATH, CAPTURE_BASE_PATH, INTERNAL_BASE_PATH],
    redis,
    clock,
    keyPrefix: dependencies.rateLimitKeyPrefix ?? config.RATE_LIMIT_KEY_PREFIX,
  });
  armCrashPoint(config.FAULT_CRASH_AT);
  const storage =
    dependencies.evidenceVault ??
    createEvidenceVault(dependencies.evidenceStorage ?? (await createEvidenceStorage(evidenceStorageConfig(config))), createEvidenceKeyRing(config.EVIDENCE_KEYS, dependencies.secretsKey));
  const spoolSweeper = startSpoolSweeper({ spoolDir: storage.spoolDir, maxAgeMs: config.HTTP_REQUEST_TIMEOUT_MS, intervalMs: config.SPOOL_SWEEP_INTERVAL_MS, clock, log: app.log });
  const box = createSecretBox(dependencies.secretsKey);
  const policy = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS };
  const mailer = createIdentityMailer(config, box);
  const mailTransport =
    dependencies.mailTransport ?? createMailTransport(mailSettings(config, resolveDataDir(config.DATA_DIR), SERVICE_NAME), { logger: app.log, ...(dependencies.smtpCa ? { ca: dependencies.smtpCa } : {}) });
  const worker = createIdentityWorker({
    db,
    storage,
    config,
    checksProvider: dependencies.checksProvider ?? ownProvider,
    box,
    policy,
    listen: database.listen,
    clock,
    logger: app.log,
    metrics: app.metrics,
    mail: { mailer, transport: mailTransport, retryScheduleMs: config.MAIL_RETRY_SCHEDULE_MS },
  });
  dependencies.onWorker?.(worker);
  watchReviewQueue(app.metrics, db, clock);
  // Like fx's alert worker: started when the server listens, never in app.inject tests.
  if (config.WORKER_IN_PROCESS) app.addHook('onListen', () => worker.start());
  // A quality hint has CAPTURE_QUALITY_HINT_MS (1.5 s) and loading the models takes seconds: cold, the first
  // uploads after a start would get no hint. Loaded once listening, in the background, so the start is not held
  // up; a failed load shows on /health and the next check or hint tries again.
  const warm = ownProvider?.warm?.bind(ownProvider);
  if (warm) app.addHook('onListen', async () => void warm().catch((error: unknown) => app.log.warn({ err: error }, 'loading the on-CPU checks models at start failed')));
  app.addHook('onClose', async () => {
    spoolSweeper.stop();
    rateLimit.close();
    await credentials.stop();
    await worker.stop();
    await ownProvider?.close();
    await lastUsed.stop();
  });
  const relyingParty = relyingPartyOf(config.WEBAUTHN_ORIGINS);
  await app.register(cookie);
  await app.register(clientCertificatePlugin, { isTrustedProxy, escapedPemHeader: config.CLIENT_CERT_HEADER });
  await app.register(authenticationPlugin, { db, clock, basePath: API_BASE_PATH, lastUsed, credentials, allowedOrigins: [config.PUBLIC_BASE_URL] });
  await app.register(portalPagePlugin, { root: config.PORTAL_WEB_ROOT });
  await app.register(consolePagePlugin, { root: config.CONSOLE_WEB_ROOT });
  await app.register(capturePagePlugin, { root: config.CAPTURE_WEB_ROOT, db });
  await app.register(oauthMetadataRoutes, { issuer: config.PUBLIC_BASE_URL, mtlsBaseUrl: config.MTLS_BASE_URL, apiBasePath: API_BASE_PATH });
  await app.register(
    async (api) => {
      await api.register(portalRoutes, {
        db,
        clock,
        cookieSecure: config.PORTAL_COOKIE_SECURE,
        cookiePath: API_BASE_PATH,
        credentials,
        allowedOrigins: [config.PUBLIC_BASE_URL],
        retention: { undecidedRetentionDays: config.UNDECIDED_RETENTION_DAYS, auditRetentionDays: config.AUDIT_RETENTION_DAYS },
        box,
        relyingParty,
        mailer,
      });
      await api.register(portalAccountRoutes, { db, clock, credentials, mailer });
      await api.register(portalTeamRoutes, {
        db,
        clock,
        credentials,
        portalOrigin: config.PORTAL_ORIGIN,
        cookieSecure: config.PORTAL_COOKIE_SECURE,
        cookiePath: API_BASE_PATH,
        allowedOrigins: [config.PUBLIC_BASE_URL],
        mailer,
      });
      await api.register(portalSecondFactorRoutes, { db, clock, credentials, box, relyingParty, mailer });
      await api.register(oauthClientRoutes, { db, clock, credentials });
      await api.register(oauthTokenRoutes, { db, clock, lastUsed, credentials });
      await api.register(verificationRoutes, { db, clock, sessionTtlSeconds: config.SESSION_TTL_SECONDS,
        captureOrigin: config.CAPTURE_ORIGIN,
        allowLocalhostReturnUrl: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
        documentNumberDigest: storage.keyRing.documentNumberDigest });
      // Loopback http origins for a partner's local page: only on the embedded default (no DATABASE_URL).
      await api.register(captureSettingsRoutes, { db, clock, allowLoopbackHttp: !config.DATABASE_URL });
      await api.register(reportRoutes, { db, clock });
      await api.register(webhookRoutes, { db, clock, box, policy });
      await api.register(evidenceRoutes, { db, clock, storage });
      await api.register(redactionRoutes, { db, clock, afterRequest: () => worker.wake() });
    },
    { prefix: API_BASE_PATH },
  );
  const captureOptions = {
    db,
    clock,
    storage,
    limits: { maxImageBytes: config.MAX_IMAGE_BYTES, maxVideoBytes: config.MAX_VIDEO_BYTES },
    uploadGraceMs: config.EVIDENCE_UPLOAD_GRACE_MS,
    uploadSlots: createUploadSlots({ perAddress: config.CAPTURE_UPLOADS_PER_IP, total: config.CAPTURE_UPLOADS_MAX, retryAfterSeconds: 5 }),
    checksAttempts: config.CHECKS_RETRY_SCHEDULE_MS.length,
    afterSubmit: () => worker.wake(),
    // Only the local checks have quick looks; an injected provider (tests, the bench) has none.
    qualityHints: ownProvider?.hints ? { hints: ownProvider.hints, budgetMs: config.CAPTURE_QUALITY_HINT_MS } : null,
  };
  await app.register(captureRoutes, { prefix: CAPTURE_BASE_PATH, ...captureOptions });
  await app.register(captureUploadRoutes, { prefix: CAPTURE_BASE_PATH, ...captureOptions });
  await app.register(internalReviewRoutes, {
    prefix: INTERNAL_BASE_PATH,
    db,
    clock,
    storage,
    ffmpegPath: config.CHECKS_FFMPEG_PATH,
    cookieSecure: config.PORTAL_COOKIE_SECURE,
    allowedOrigins: [config.PUBLIC_BASE_URL],
    box,
    requireSecondFactor: config.STAFF_REQUIRE_SECOND_FACTOR,
    relyingParty,
    openApiDocument: staffOpenApi,
    mailer,
    credentials,
  });
  return app;
}
