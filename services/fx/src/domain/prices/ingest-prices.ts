import { ValidationError, type FieldError } from '@svc/problem-json';
import { and, desc, eq, lte } from 'drizzle-orm';
import { cryptoPrices, goldPrices, outboxEvents } from '../../db/schema.js';
import { decimalString, fromFixedPoint, toFixedPoint } from '../rates/decimal.js';
import type { FxExecutor } from '../../db/executor.js';

export const GOLD_UNITS = ['ounce', 'gram'] as const;
export const GOLD_KARATS = [24, 22, 21, 18] as const;
export type GoldUnit = (typeof GOLD_UNITS)[number];
export type GoldKarat = (typeof GOLD_KARATS)[number];

export interface CryptoPriceInput {
  symbol: string;
  name: string;
  priceUsd: number;
  timestampUtc?: string | undefined;
  /** The upstream sources this price was combined from. */
  contributors?: string[] | undefined;
}

export interface GoldPriceInput {
  unit: GoldUnit;
  karat: GoldKarat;
  priceUsd: number;
  timestampUtc?: string | undefined;
  /** The upstream sources this price was combined from. */
  contributors?: string[] | undefined;
}

export interface PriceChange {
  change24h: string | null;
  changePercent24h: string | null;
}

const DAY_MS = 86_400_000;
const PERCENT_SCALE = 10n ** 8n;

/**
 * Change against the newest stored price observed at least 24 hours before this one;
 * null while the history is shorter than a day (an honest "unknown", not a fake 0).
 */
export function changeSince(reference: string | undefined, price: string): PriceChange {
  if (reference === undefined) return { change24h: null, changePercent24h: null };
  const change = toFixedPoint(price) - toFixedPoint(reference);
  const referenceFixed = toFixedPoint(reference);
  const percent = referenceFixed === 0n ? null : (change * 100n * PERCENT_SCALE) / referenceFixed;
  return { change24h: fromFixedPoint(change), changePercent24h: percent === null ? null : fromFixedPoint(percent) };
}

function rejectDuplicates(keys: string[], path: (index: number) => string, describe: string): void {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  keys.forEach((key, index) => {
    if (seen.has(key)) errors.push({ path: path(index), message: `${describe} ${key} appears more than once` });
    seen.add(key);
  });
  if (errors.length > 0) throw new ValidationError(`Duplicate ${describe} in one request: ${errors.map((error) => error.path).join(', ')}`, errors);
}

function observedAtOf(timestampUtc: string | undefined, now: Date, path: string): Date {
  if (timestampUtc === undefined) return now;
  const observedAt = new Date(timestampUtc);
  if (observedAt.getTime() > now.getTime() + 5 * 60_000) {
    throw new ValidationError('A price cannot be observed in the future.', [{ path, message: 'must not be more than 5 minutes in the future' }]);
  }
  return observedAt;
}

/** Validated crypto ingestion: one transaction with its outbox event. */
export async function ingestCryptoPrices(tx: FxExecutor, prices: CryptoPriceInput[], now: Date) {
  const symbols = prices.map((price) => price.symbol.toUpperCase());
  rejectDuplicates(symbols, (index) => `body.prices.${index}.symbol`, 'symbol');
  const accepted = [];
  for (const [index, price] of prices.entries()) {
    const symbol = symbols[index] ?? price.symbol;
    const observedAt = observedAtOf(price.timestampUtc, now, `body.prices.${index}.timestampUtc`);
    const priceUsd = decimalString(price.priceUsd);
    const [reference] = await tx
      .select({ priceUsd: cryptoPrices.priceUsd })
      .from(cryptoPrices)
      .where(and(eq(cryptoPrices.symbol, symbol), lte(cryptoPrices.observedAt, new Date(observedAt.getTime() - DAY_MS))))
      .orderBy(desc(cryptoPrices.observedAt))
      .limit(1);
    const change = changeSince(reference?.priceUsd, priceUsd);
    await tx.insert(cryptoPrices).values({ symbol, name: price.name.trim(), priceUsd, ...change, observedAt, contributors: price.contributors ?? null });
    accepted.push({ symbol, priceUsd, ...change });
  }
  await tx.insert(outboxEvents).values({ topic: 'crypto.ingested', payload: { prices: accepted }, createdAt: now });
  return accepted;
}

/** Validated gold ingestion: one transaction with its outbox event. */
export async function ingestGoldPrices(tx: FxExecutor, prices: GoldPriceInput[], now: Date) {
  rejectDuplicates(prices.map((price) => `${price.unit}/${price.karat}K`), (index) => `body.prices.${index}`, 'unit and karat');
  const accepted = [];
  for (const [index, price] of prices.entries()) {
    const observedAt = observedAtOf(price.timestampUtc, now, `body.prices.${index}.timestampUtc`);
    const priceUsd = decimalString(price.priceUsd);
    const [reference] = await tx
      .select({ priceUsd: goldPrices.priceUsd })
      .from(goldPrices)
      .where(and(eq(goldPrices.unit, price.unit), eq(goldPrices.karat, price.karat), lte(goldPrices.observedAt, new Date(observedAt.getTime() - DAY_MS))))
      .orderBy(desc(goldPrices.observedAt))
      .limit(1);
    const change = changeSince(reference?.priceUsd, priceUsd);
    await tx.insert(goldPrices).values({ unit: price.unit, karat: price.karat, priceUsd, ...change, observedAt, contributors: price.contributors ?? null });
    accepted.push({ unit: price.unit, karat: price.karat, priceUsd, ...change });
  }
  await tx.insert(outboxEvents).values({ topic: 'gold.ingested', payload: { prices: accepted }, createdAt: now });
  return accepted;
}
