import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, numeric, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** fx owns this Postgres schema; every table of the service is declared on it. */
export const fxSchema = pgSchema('fx');

/** One published rate: SYP per one unit of `currency`, in the pound in force at `observedAt`. */
export const rateObservations = fxSchema.table(
  'rate_observations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    source: text('source', { enum: ['CBS', 'MARKET'] }).notNull(),
    currency: text('currency').notNull(),
    buy: numeric('buy').notNull(),
    sell: numeric('sell').notNull(),
    mid: numeric('mid').notNull(),
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
  },
  (table) => [index('manual_overrides_currency_idx').on(table.currency, table.activeFrom)],
);

/** Written in the same transaction as the data change; the alerts issue turns it into the delivery queue. */
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
    observedAt: timestamp('observed_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`now()`),
  },
  (table) => [index('gold_prices_unit_karat_observed_idx').on(table.unit, table.karat, table.observedAt)],
);

export const databaseSchema = { rateObservations, manualOverrides, outboxEvents, datasetFlags, cryptoPrices, goldPrices };
export type FxDatabaseSchema = typeof databaseSchema;
