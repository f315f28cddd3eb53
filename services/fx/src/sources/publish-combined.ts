import type { FxExecutor } from '../db/executor.js';
import type { LiveRecorder } from '../domain/live/live-recorder.js';
import { GOLD_KARATS, ingestCryptoPrices, ingestGoldPrices, type GoldPriceInput } from '../domain/prices/ingest-prices.js';
import { GRAMS_PER_TROY_OUNCE } from '../domain/prices/latest-prices.js';
import { ingestRates } from '../domain/rates/ingest-rates.js';
import type { RateChangeListener, RateSource } from '../domain/rates/rate-types.js';
import type { CombinedPrice } from './combine.js';
import { COIN_NAMES, GOLD_KEY } from './quotes.js';

/** Every karat in both units from the fine-gold (24K) troy ounce price. */
export function goldPricesFromOunce(ounceUsd: number, timestampUtc: string, contributors: string[]): GoldPriceInput[] {
  return GOLD_KARATS.flatMap((karat) => {
    const ounce = (ounceUsd * karat) / 24;
    return [
      { unit: 'ounce' as const, karat, priceUsd: ounce, timestampUtc, contributors },
      { unit: 'gram' as const, karat, priceUsd: ounce / Number(GRAMS_PER_TROY_OUNCE), timestampUtc, contributors },
    ];
  });
}

/**
 * Writes combined prices through the one ingestion path of their kind, each with the sources
 * it came from, and tells live streams, all in the caller's transaction.
 */
export async function publishCombined(tx: FxExecutor, prices: readonly CombinedPrice[], options: { now: Date; live: LiveRecorder; onRateChanged: RateChangeListener }): Promise<void> {
  const { now, live } = options;
  const crypto = prices.filter((price) => price.key.startsWith('crypto:'));
  if (crypto.length > 0) {
    const accepted = await ingestCryptoPrices(
      tx,
      crypto.map((price) => {
        const symbol = price.key.slice('crypto:'.length);
        return { symbol, name: price.name ?? COIN_NAMES[symbol] ?? symbol, priceUsd: price.value, timestampUtc: price.observedAt.toISOString(), contributors: price.contributors };
      }),
      now,
    );
    await live.cryptoChanged(tx, accepted.map((price) => price.symbol), now);
  }
  const gold = prices.find((price) => price.key === GOLD_KEY);
  if (gold) {
    const accepted = await ingestGoldPrices(tx, goldPricesFromOunce(gold.value, gold.observedAt.toISOString(), gold.contributors), now);
    await live.goldChanged(tx, accepted, now);
  }
  // Rates: one ingestion per (source, contributors, time), as an upstream publishes them together.
  const rateGroups = new Map<string, { source: RateSource; prices: CombinedPrice[] }>();
  for (const price of prices.filter((candidate) => candidate.key.startsWith('rates:'))) {
    const [, source = 'MARKET'] = price.key.split(':');
    const group = `${source}|${price.contributors.join(',')}|${price.observedAt.toISOString()}`;
    const entry = rateGroups.get(group) ?? { source: source as RateSource, prices: [] };
    entry.prices.push(price);
    rateGroups.set(group, entry);
  }
  for (const { source, prices: group } of rateGroups.values()) {
    const first = group[0];
    if (!first) continue;
    const rates = group.map((price) => ({ currency: price.key.split(':')[2] ?? '', buy: price.buy ?? price.value, sell: price.sell ?? price.value }));
    const accepted = await ingestRates(tx, { source, observedAt: first.observedAt, rates, contributors: first.contributors }, now, options.onRateChanged);
    await live.ratesChanged(tx, { kind: source, currencies: accepted.map((rate) => rate.currency) }, now);
  }
}
