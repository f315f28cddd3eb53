import { count, eq, sql } from 'drizzle-orm';
import { cryptoPrices, datasetFlags, goldPrices, outboxEvents, rateObservations } from '../../db/schema.js';
import { changeSince } from '../prices/ingest-prices.js';
import { fromFixedPoint, toFixedPoint } from './decimal.js';
import type { FxExecutor } from '../../db/executor.js';
import type { RateSource } from './rate-types.js';

/** Approximate value of one unit in USD, for plausible demo cross rates. */
const USD_VALUE: Record<string, number> = {
  USD: 1, EUR: 1.08, GBP: 1.27, CHF: 1.12, SEK: 0.095, CAD: 0.73, AUD: 0.66, CNY: 0.14,
  RUB: 0.011, TRY: 0.031, SAR: 0.2667, AED: 0.2723, JOD: 1.41, EGP: 0.0205, KWD: 3.25, QAR: 0.2747,
  LBP: 0.0000112, IQD: 0.000763,
};

export interface DemoSeedOptions {
  now: Date;
  days: number;
  redenominationDate: Date;
  redenominationFactor: number;
}

/** Small deterministic PRNG: the same seed gives the same demo history on every machine. */
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const toDecimal = (value: number) => fromFixedPoint(toFixedPoint(value.toFixed(6)));

/**
 * A realistic daily history: the market USD rate random-walks around 13,000 old pounds
 * (≈130 new ones after the redenomination), CBS about 4% below it, other currencies
 * crossed through their USD value. Values are stored in the pound in force at each date.
 */
export function generateDemoRates(options: DemoSeedOptions) {
  const random = mulberry32(20260101);
  const rows: { source: RateSource; currency: string; buy: string; sell: string; mid: string; observedAt: Date }[] = [];
  let usdNewPounds = 130;
  // One point a day ending now, so a freshly seeded service reports fresh (not stale) sources.
  for (let day = options.days - 1; day >= 0; day -= 1) {
    const observedAt = new Date(options.now.getTime() - day * 86_400_000);
    usdNewPounds = Math.min(150, Math.max(110, usdNewPounds * (1 + (random() - 0.5) * 0.02)));
    const scale = observedAt < options.redenominationDate ? options.redenominationFactor : 1;
    for (const [currency, usdValue] of Object.entries(USD_VALUE)) {
      const wobble = 1 + (random() - 0.5) * 0.004;
      const marketMid = usdNewPounds * usdValue * wobble * scale;
      const sources: [RateSource, number, number][] = [
        ['MARKET', marketMid, 0.006],
        ['CBS', marketMid * 0.96, 0.002],
      ];
      for (const [source, mid, halfSpread] of sources) {
        rows.push({ source, currency, buy: toDecimal(mid * (1 - halfSpread)), sell: toDecimal(mid * (1 + halfSpread)), mid: toDecimal(mid), observedAt });
      }
    }
  }
  return rows;
}

const DEMO_COINS: [symbol: string, name: string, startUsd: number, dailyVolatility: number][] = [
  ['BTC', 'Bitcoin', 92_000, 0.03],
  ['ETH', 'Ethereum', 3_100, 0.04],
  ['USDT', 'Tether', 1, 0.0005],
  ['BNB', 'BNB', 610, 0.03],
  ['SOL', 'Solana', 140, 0.05],
];
const GOLD_OUNCE_USD = 2_650;
const KARAT_PURITY: Record<number, number> = { 24: 1, 22: 22 / 24, 21: 21 / 24, 18: 18 / 24 };

/** Daily crypto and gold prices over the same days, each with its change against the day before. */
export function generateDemoPrices(options: DemoSeedOptions) {
  const random = mulberry32(20260102);
  const crypto: { symbol: string; name: string; priceUsd: string; change24h: string | null; changePercent24h: string | null; observedAt: Date }[] = [];
  const gold: { unit: 'ounce' | 'gram'; karat: number; priceUsd: string; change24h: string | null; changePercent24h: string | null; observedAt: Date }[] = [];
  const coinPrices = new Map(DEMO_COINS.map(([symbol, , start]) => [symbol, start]));
  const previous = new Map<string, string>();
  let ounce = GOLD_OUNCE_USD;
  for (let day = options.days - 1; day >= 0; day -= 1) {
    const observedAt = new Date(options.now.getTime() - day * 86_400_000);
    for (const [symbol, name, , volatility] of DEMO_COINS) {
      const price = (coinPrices.get(symbol) ?? 1) * (1 + (random() - 0.5) * 2 * volatility);
      coinPrices.set(symbol, price);
      const priceUsd = toDecimal(price);
      crypto.push({ symbol, name, priceUsd, ...changeSince(previous.get(symbol), priceUsd), observedAt });
      previous.set(symbol, priceUsd);
    }
    ounce *= 1 + (random() - 0.5) * 0.016;
    for (const [karat, purity] of Object.entries(KARAT_PURITY)) {
      for (const [unit, perUnit] of [['ounce', ounce * purity], ['gram', (ounce * purity) / 31.1034768]] as const) {
        const key = `gold:${unit}:${karat}`;
        const priceUsd = toDecimal(perUnit);
        gold.push({ unit, karat: Number(karat), priceUsd, ...changeSince(previous.get(key), priceUsd), observedAt });
        previous.set(key, priceUsd);
      }
    }
  }
  return { crypto, gold };
}

/** With `lock`, concurrent writers of rates wait until the caller's transaction ends (a seed checks, then fills). */
export async function countRateObservations(db: FxExecutor, options: { lock?: boolean } = {}): Promise<number> {
  if (options.lock) await db.execute(sql`lock table ${rateObservations} in share row exclusive mode`);
  const [row] = await db.select({ rows: count() }).from(rateObservations);
  return row?.rows ?? 0;
}

export async function isDatabaseEmpty(db: FxExecutor): Promise<boolean> {
  return (await countRateObservations(db)) === 0;
}

export async function isDemoData(db: FxExecutor): Promise<boolean> {
  const [flag] = await db.select({ value: datasetFlags.value }).from(datasetFlags).where(eq(datasetFlags.key, 'demo'));
  return flag?.value === true;
}

/** Loads the demo history and marks the dataset as demo, in one transaction. */
export async function seedDemoData(tx: FxExecutor, options: DemoSeedOptions): Promise<{ rates: number; days: number }> {
  const rows = generateDemoRates(options);
  for (let start = 0; start < rows.length; start += 1000) await tx.insert(rateObservations).values(rows.slice(start, start + 1000));
  const prices = generateDemoPrices(options);
  for (let start = 0; start < prices.crypto.length; start += 1000) await tx.insert(cryptoPrices).values(prices.crypto.slice(start, start + 1000));
  for (let start = 0; start < prices.gold.length; start += 1000) await tx.insert(goldPrices).values(prices.gold.slice(start, start + 1000));
  await tx
    .insert(datasetFlags)
    .values({ key: 'demo', value: true, updatedAt: options.now })
    .onConflictDoUpdate({ target: datasetFlags.key, set: { value: true, updatedAt: options.now } });
  await tx.insert(outboxEvents).values({ topic: 'demo.seeded', payload: { rates: rows.length, days: options.days }, createdAt: options.now });
  return { rates: rows.length, days: options.days };
}
