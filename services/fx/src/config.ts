import { baseServiceEnvironment, deliveryQueueVariables, emptyAsUndefined, parseEnvironment, requireHeadersWithinRequestTimeout, requireSecretsKeyWithDatabase, retryScheduleVariable } from '@svc/service-kit';
import { mailEnvironmentVariables } from '@svc/mailer';
import { z } from 'zod';

const positiveInteger = (fallback: number) => z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(fallback));

export const fxEnvironmentSchema = baseServiceEnvironment(3002)
  .extend({
    /** Admin ingestion API; no admin routes at all when unset. */
    FX_ADMIN_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
    /** Anonymous per-IP limits (fixed windows); the bench raises them for its run. */
    RATE_LIMIT_ANON_PER_MINUTE: positiveInteger(60),
    RATE_LIMIT_ANON_PER_HOUR: positiveInteger(1200),
    /** A source whose newest rate is older than this is reported stale by /health. */
    FX_STALE_SOURCE_SECONDS: positiveInteger(6 * 3600),
    /** Upstream pollers (JSON `{timestampUtc?, rates: [...]}`); each is off when its URL is unset. */
    FX_POLL_CBS_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
    FX_POLL_MARKET_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
    FX_POLL_INTERVAL_SECONDS: positiveInteger(300),
    /** Upstream sources (built-in connectors and declarative ones), YAML or JSON; none when unset. Validated at start. */
    FX_SOURCES_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
    /** Development and tests only: lets sources be fetched from private/loopback hosts and over http://. */
    FX_SOURCES_ALLOW_PRIVATE_TARGETS: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false').transform((value) => value === 'true')),
    /** Time limit of one source fetch, connection included. */
    FX_SOURCES_TIMEOUT_MS: positiveInteger(10_000),
    /** How long the instance fetching the sources keeps the job without renewing it (it renews every second); longer than a fetch's timeout. */
    FX_SOURCES_LEASE_SECONDS: positiveInteger(30),
    /** The Syrian pound redenomination: from this UTC date, 1 new pound = FACTOR old pounds. */
    FX_REDENOMINATION_DATE: z.preprocess(emptyAsUndefined, z.iso.date().default('2026-01-01')),
    FX_REDENOMINATION_FACTOR: positiveInteger(100),
    /** Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed; empty = use the socket address. */
    TRUSTED_PROXIES: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .optional()
        .transform((value) => (value ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0)),
    ),
    /** Directory of the built rates page (Vite output); default dist/web beside the code. Tests point it at their own build. */
    FX_WEB_ROOT: z.preprocess(emptyAsUndefined, z.string().optional()),
    /** Directory of the built developer dashboard (/developers); default dist/developers beside the code. */
    FX_DEVELOPERS_WEB_ROOT: z.preprocess(emptyAsUndefined, z.string().optional()),
    /** Development and tests only: lets rate-alert webhooks target private/loopback hosts and http://. */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false').transform((value) => value === 'true')),
    /** Delay before each attempt of one firing (the count is the number of attempts): immediately, 5 s, 30 s. */
    ALERT_RETRY_SCHEDULE_MS: retryScheduleVariable('0,5000,30000'),
    /** Time limit of one webhook POST, connection included. */
    ALERT_DELIVERY_TIMEOUT_MS: positiveInteger(10_000),
    /** Run the delivery worker inside the API process (default); false when workers run apart (pnpm --filter @svc/fx worker). */
    ...deliveryQueueVariables(),
    /** Live streams (/rates/stream): open at once per anonymous IP (keys: by plan). */
    FX_STREAM_MAX_PER_IP: positiveInteger(5),
    /** A stream whose unsent bytes pass this is dropped: its client is gone or cannot keep up. */
    FX_STREAM_MAX_BUFFER_BYTES: positiveInteger(1024 * 1024),
    FX_STREAM_HEARTBEAT_SECONDS: positiveInteger(15),
    /** The reconnection delay browsers are told (`retry:`); on shutdown a random delay up to twice this. */
    FX_STREAM_RETRY_MS: positiveInteger(3000),
    /** How long changes are kept for Last-Event-ID resumes (at least 10 minutes are promised). */
    FX_STREAM_RETENTION_MINUTES: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(10).default(15)),
    /** The origin every link in a mail starts with (the dashboard's screens). */
    PUBLIC_BASE_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).default('http://localhost:3002')),
    /** Mail transport (SMTP_URL; unset: .eml files under $DATA_DIR/fx/mail), sender and reply address. */
    ...mailEnvironmentVariables('"Exchange Rates" <no-reply@localhost>'),
    /** Delay before each attempt of a mail: at once, 10 s, 1 min, 5 min, 15 min, then hourly (40 attempts, about two days). */
    MAIL_RETRY_SCHEDULE_MS: retryScheduleVariable('0,10000,60000,300000,900000,3600000'),
    /** Developer dashboard sign-up: open (anyone signs up and confirms an address) or closed (accounts by the operator). */
    FX_SIGNUP: z.preprocess(emptyAsUndefined, z.enum(['open', 'closed']).default('open')),
    /** How long a private key replaced on the developer dashboard keeps working (a day, so deployments can switch over); 0 ends it at once. */
    FX_KEY_ROTATION_GRACE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(30 * 86_400).default(86_400)),
    ALERT_WORKER_IN_PROCESS: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('true').transform((value) => value === 'true')),
  })
  .superRefine(requireSecretsKeyWithDatabase)
  .superRefine(requireHeadersWithinRequestTimeout);

export type FxConfig = Readonly<z.output<typeof fxEnvironmentSchema>>;

export function loadFxConfig(env: Record<string, string | undefined> = process.env): FxConfig {
  return parseEnvironment(fxEnvironmentSchema, env);
}
