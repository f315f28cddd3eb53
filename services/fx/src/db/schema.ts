import { sql } from 'drizzle-orm';
import { defineDeliveryTable, defineJobTable } from '@svc/outbox';
import { bigserial, boolean, date, index, integer, jsonb, numeric, pgSchema, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { RATE_SOURCES } from '../domain/rates/rate-types.js';

/** fx owns this Postgres schema; every table of the service is declared on it. */
export const fxSchema = pgSchema('fx');

/** One published rate: SYP per one unit of `currency`, in the pound in force at `observedAt`. */
export const rateObservations = fxSchema.table(
  'rate_observations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    source: text('source', { enum: RATE_SOURCES }).notNull(),
    currency: text('currency').notNull(),
    buy: numeric('buy').notNull(),
    sell: numeric('sell').notNull(),
    mid: numeric('mid').notNull(),
    /** The upstream sources (FX_SOURCES_FILE names) whose median this is; null when written by hand, import or seed. */
    contributors: jsonb('contributors').$type<string[]>(),
    observedAt: timestamp('observed_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`now()`),
  },
  // History and "latest per currency" both read by (currency, source) newest first.
  (table) => [index('rate_observations_currency_source_observed_idx').on(table.currency, table.source, table.observedAt)],
);

/** Operator-set rate that wins over the market while active (activeTo null = until removed). */
export const manualOverrides = fxSchema.table(
  'manual_overrides',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    currency: text('currency').notNull(),
    buy: numeric('buy').notNull(),
    sell: numeric('sell').notNull(),
    mid: numeric('mid').notNull(),
    setBy: text('set_by').notNull(),
    reason: text('reason').notNull(),
    activeFrom: timestamp('active_from', { withTimezone: true, mode: 'date' }).notNull(),
    activeTo: timestamp('active_to', { withTimezone: true, mode: 'date' }),
    /** When live streams and alerts were told the override ended; null while an expiry time is still ahead of them. */
    endAnnouncedAt: timestamp('end_announced_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [
    index('manual_overrides_currency_idx').on(table.currency, table.activeFrom),
    index('manual_overrides_unannounced_end_idx').on(table.activeTo).where(sql`${table.activeTo} is not null and ${table.endAnnouncedAt} is null`),
  ],
);

/**
 * One row per data change (ingestion, override, seed), written in the change's own transaction: a
 * durable record of what changed and when. Rate alerts do not read it; they are queued by the
 * RateChangeListener inside that same transaction.
 */
export const outboxEvents = fxSchema.table(
  'outbox_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    topic: text('topic').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [index('outbox_events_unprocessed_idx').on(table.id).where(sql`${table.processedAt} is null`)],
);

/** Facts about the dataset itself, e.g. `demo` = true while the generated demo history is loaded. */
export const datasetFlags = fxSchema.table('dataset_flags', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * One published crypto price in USD. The 24-hour change is computed at ingestion from the
 * newest stored price at least 24 hours older (null while there is none), not posted.
 */
export const cryptoPrices = fxSchema.table(
  'crypto_prices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    symbol: text('symbol').notNull(),
    name: text('name').notNull(),
    priceUsd: numeric('price_usd').notNull(),
    change24h: numeric('change_24h'),
    changePercent24h: numeric('change_percent_24h'),
    /** The upstream sources (FX_SOURCES_FILE names) whose median this is; null when written by hand, import or seed. */
    contributors: jsonb('contributors').$type<string[]>(),
    observedAt: timestamp('observed_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`now()`),
  },
  (table) => [index('crypto_prices_symbol_observed_idx').on(table.symbol, table.observedAt)],
);

/** One published gold price in USD per unit (troy ounce or gram) of a karat; change computed as for crypto. */
export const goldPrices = fxSchema.table(
  'gold_prices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    unit: text('unit', { enum: ['ounce', 'gram'] }).notNull(),
    karat: integer('karat').notNull(),
    priceUsd: numeric('price_usd').notNull(),
    change24h: numeric('change_24h'),
    changePercent24h: numeric('change_percent_24h'),
    /** The upstream sources (FX_SOURCES_FILE names) whose median this is; null when written by hand, import or seed. */
    contributors: jsonb('contributors').$type<string[]>(),
    observedAt: timestamp('observed_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`now()`),
  },
  (table) => [index('gold_prices_unit_karat_observed_idx').on(table.unit, table.karat, table.observedAt)],
);

const timestampTz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Developer-dashboard accounts (/developers): the address is stored lower-cased, the password only as
 * its Argon2id hash (@svc/accounts). Failed sign-ins are counted on the row: 5 within 15 minutes lock it.
 */
export const developerAccounts = fxSchema.table(
  'developer_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** One of fx's six languages: the dashboard's and the mails'. */
    language: text('language').notNull(),
    plan: text('plan', { enum: ['Free', 'Starter', 'Professional', 'Enterprise'] }).notNull().default('Free'),
    emailVerifiedUtc: timestamp('email_verified_utc', { withTimezone: true, mode: 'date' }),
    failedSignIns: integer('failed_sign_ins').notNull().default(0),
    failureWindowStartedUtc: timestamp('failure_window_started_utc', { withTimezone: true, mode: 'date' }),
    lockedUntilUtc: timestamp('locked_until_utc', { withTimezone: true, mode: 'date' }),
    createdUtc: timestamp('created_utc', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [uniqueIndex('developer_accounts_email_key').on(table.email)],
);

/** Session cookies and mailed verification links of developer accounts, stored only as SHA-256 (hex). */
export const developerTokens = fxSchema.table(
  'developer_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => developerAccounts.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['session', 'verify'] }).notNull(),
    expiresUtc: timestamp('expires_utc', { withTimezone: true, mode: 'date' }).notNull(),
    usedUtc: timestamp('used_utc', { withTimezone: true, mode: 'date' }),
    createdUtc: timestamp('created_utc', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('developer_tokens_account_idx').on(table.accountId, table.purpose)],
);

/**
 * Every "forgot password" request of the dashboard, known address or not, so the limits (per
 * address, per IP) count requests alike; a row for an existing account also holds the SHA-256 of its single-use link token.
 */
export const developerPasswordResets = fxSchema.table(
  'developer_password_resets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** As typed (lower-cased): the per-address limit counts it whether or not it has an account. */
    email: text('email').notNull(),
    ipAddress: text('ip_address'),
    accountId: uuid('account_id').references(() => developerAccounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash'),
    createdUtc: timestampTz('created_utc').notNull(),
    expiresUtc: timestampTz('expires_utc').notNull(),
    usedUtc: timestampTz('used_utc'),
  },
  (table) => [
    uniqueIndex('developer_password_resets_token_key').on(table.tokenHash),
    index('developer_password_resets_email_idx').on(table.email, table.createdUtc),
    index('developer_password_resets_ip_idx').on(table.ipAddress, table.createdUtc),
  ],
);

/** API-key clients: the private key is stored only as its SHA-256 (hex). */
export const apiClients = fxSchema.table(
  'api_clients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    plan: text('plan', { enum: ['Free', 'Starter', 'Professional', 'Enterprise'] }).notNull(),
    publicKey: text('public_key').notNull(),
    privateKeyHash: text('private_key_hash').notNull(),
    /** The private key a rotation replaced (SHA-256, hex): it still authenticates until previousKeyExpiresUtc. */
    previousPrivateKeyHash: text('previous_private_key_hash'),
    previousKeyExpiresUtc: timestampTz('previous_key_expires_utc'),
    /** Where notices about the client's account go (e.g. a disabled rate alert); optional. */
    email: text('email'),
    /** The language of mails to `email` (one of fx's six); null: Arabic, fx's default. */
    language: text('language'),
    /** The developer account that made it on the dashboard; null for clients of the CLI and the admin API. */
    accountId: uuid('account_id').references(() => developerAccounts.id),
    isActive: boolean('is_active').notNull().default(true),
    createdUtc: timestampTz('created_utc').notNull(),
    lastUsedUtc: timestampTz('last_used_utc'),
  },
  (table) => [uniqueIndex('api_clients_public_key_key').on(table.publicKey), index('api_clients_account_idx').on(table.accountId)],
);

/**
 * Rate-alert webhooks. `triggerLevel` is the rate at which the alert fires next: the threshold
 * for ABOVE/BELOW, reference × (1 ± percent/100) for the percent alerts; evaluation selects
 * the crossed range of it through one index. `primed`: created or re-enabled since the last
 * update, so the next update fires it if the condition already holds.
 */
export const rateAlerts = fxSchema.table(
  'rate_alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id').notNull().references(() => apiClients.id),
    webhookUrl: text('webhook_url').notNull(),
    currency: text('currency').notNull(),
    source: text('source', { enum: RATE_SOURCES }).notNull(),
    alertType: smallint('alert_type').notNull(),
    thresholdValue: numeric('threshold_value').notNull(),
    label: text('label'),
    isActive: boolean('is_active').notNull().default(true),
    referenceRate: numeric('reference_rate'),
    triggerLevel: numeric('trigger_level'),
    primed: boolean('primed').notNull().default(true),
    /** AES-256-GCM sealed with SECRETS_KEY (service-kit secret box); shown in clear only once. */
    signingSecretSealed: text('signing_secret_sealed').notNull(),
    /** The secret a rotation with a grace window replaced, sealed the same way; it also signs until previousSecretExpiresUtc. */
    previousSigningSecretSealed: text('previous_signing_secret_sealed'),
    previousSecretExpiresUtc: timestampTz('previous_secret_expires_utc'),
    lastDeliveryStatusCode: integer('last_delivery_status_code'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastTriggeredUtc: timestampTz('last_triggered_utc'),
    createdUtc: timestampTz('created_utc').notNull(),
  },
  (table) => [
    index('rate_alerts_evaluation_idx').on(table.currency, table.source, table.alertType, table.triggerLevel).where(sql`${table.isActive}`),
    index('rate_alerts_primed_idx').on(table.currency, table.source).where(sql`${table.isActive} and ${table.primed}`),
    index('rate_alerts_client_idx').on(table.clientId, table.createdUtc),
  ],
);

/**
 * The last attempts of each rate-alert webhook (firings and test sends), for the dashboard's delivery
 * log: kept to ATTEMPT_LOG_SIZE per webhook, trimmed as each is written; gone with the webhook.
 */
export const alertDeliveryAttempts = fxSchema.table(
  'alert_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    alertId: uuid('alert_id')
      .notNull()
      .references(() => rateAlerts.id, { onDelete: 'cascade' }),
    /** alert: a firing's attempt; test: a send from the dashboard's "Send test". */
    kind: text('kind', { enum: ['alert', 'test'] }).notNull(),
    attemptedUtc: timestampTz('attempted_utc').notNull(),
    /** HTTP status, 0 when no answer arrived. */
    statusCode: integer('status_code').notNull(),
    /** From sending to the answer's headers; null when the attempt never reached the network (e.g. its lease was lost). */
    latencyMs: integer('latency_ms'),
    error: text('error'),
  },
  (table) => [index('alert_delivery_attempts_alert_idx').on(table.alertId, table.id)],
);

/**
 * Requests per client per UTC day on the data routes (what the monthly quota counts) and how many
 * of them got 429, for the dashboard's usage chart. Written in batches, never once per request.
 */
export const clientDailyUsage = fxSchema.table(
  'client_daily_usage',
  {
    clientId: uuid('client_id')
      .notNull()
      .references(() => apiClients.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    requests: integer('requests').notNull().default(0),
    limited: integer('limited').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.clientId, table.day] })],
);

/** Keyed quota counters when there is no Redis (embedded default): monthly usage survives restarts. */
export const usageCounters = fxSchema.table('usage_counters', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  expiresAt: timestampTz('expires_at').notNull(),
});

/**
 * Changes pushed to live streams, written in the transaction of the change they describe and
 * NOTIFYed on commit; `id` is the SSE event id, so a reconnect replays what it missed. Kept a
 * few minutes only (FX_STREAM_RETENTION_MINUTES): older resumes get a fresh snapshot.
 */
export const streamEvents = fxSchema.table(
  'stream_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** rates | crypto | gold: the SSE event name. */
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('stream_events_created_at_idx').on(table.createdAt)],
);

/** The shared durable delivery queue (@svc/outbox), in fx's schema. */
export const alertDeliveries = defineDeliveryTable(fxSchema, 'alert_deliveries');

/**
 * Who fetches the FX_SOURCES_FILE sources (one row, `lease` = 'upstream-sources'): the instance whose lease
 * has not run out, renewed every second. It writes every source's state here after each run, so any
 * instance's /health reports what the fetching one saw.
 */
export const sourceLeases = fxSchema.table('source_leases', {
  lease: text('lease').primaryKey(),
  holder: text('holder').notNull(),
  leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }).notNull(),
  /** SharedSourcesState (workers/source-lease.ts); null before the first run. */
  state: jsonb('state'),
});

/** Background jobs on the shared leased queue (@svc/outbox): mails (kind send-mail, @svc/mailer). */
export const jobs = defineJobTable(fxSchema, 'jobs');

export const databaseSchema = { rateObservations, manualOverrides, outboxEvents, datasetFlags, cryptoPrices, goldPrices, apiClients, rateAlerts, alertDeliveryAttempts, usageCounters, clientDailyUsage, alertDeliveries, streamEvents, sourceLeases, jobs, developerAccounts, developerTokens, developerPasswordResets };
export type FxDatabaseSchema = typeof databaseSchema;
