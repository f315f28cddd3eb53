import type { CryptoPrices, LatestRates, RateEntry } from './api.js';

/** Each list of `latest` with the changed entries in place (new currencies appended in order). */
export function applyRatesChange(latest: LatestRates, change: LatestRates): LatestRates {
  const merge = (entries: RateEntry[], changed: RateEntry[]) => {
    if (changed.length === 0) return entries;
    const byCurrency = new Map(entries.map((entry) => [entry.currency, entry]));
    for (const entry of changed) byCurrency.set(entry.currency, entry);
    return [...byCurrency.values()].sort((left, right) => left.currency.localeCompare(right.currency));
  };
  return {
    ...latest,
    timestampUtc: change.timestampUtc,
    cbsRates: merge(latest.cbsRates, change.cbsRates),
    marketRates: merge(latest.marketRates, change.marketRates),
    effectiveRates: merge(latest.effectiveRates, change.effectiveRates),
  };
}

export function applyCryptoChange(crypto: CryptoPrices, change: CryptoPrices): CryptoPrices {
  const bySymbol = new Map(crypto.prices.map((price) => [price.symbol, price]));
  for (const price of change.prices) bySymbol.set(price.symbol, price);
  return { ...crypto, timestampUtc: change.timestampUtc, prices: [...bySymbol.values()].sort((left, right) => left.symbol.localeCompare(right.symbol)) };
}

export interface LiveHandlers {
  snapshot(latest: LatestRates): void;
  rates(change: LatestRates): void;
  crypto(change: CryptoPrices): void;
  /** Gold names come in the page's price language: the page fetches them again. */
  gold(): void;
  /** True while events flow; false while the browser reconnects. */
  live(isLive: boolean): void;
  /** The stream was refused (limits, an old proxy): the page polls instead. */
  refused(): void;
}

/**
 * Follows /api/v1/rates/stream. EventSource reconnects by itself with Last-Event-ID after a
 * drop (the server replays what was missed); only a refusal, which closes it for good, ends it.
 */
export function followLiveRates(language: string, handlers: LiveHandlers): () => void {
  if (typeof EventSource !== 'function') {
    handlers.refused();
    return () => undefined;
  }
  const source = new EventSource(`/api/v1/rates/stream?lang=${encodeURIComponent(language)}`);
  const parse = <T>(event: Event) => JSON.parse((event as MessageEvent<string>).data) as T;
  source.addEventListener('snapshot', (event) => {
    handlers.snapshot(parse<LatestRates>(event));
    handlers.live(true);
  });
  source.addEventListener('rates', (event) => handlers.rates(parse<LatestRates>(event)));
  source.addEventListener('crypto', (event) => handlers.crypto(parse<CryptoPrices>(event)));
  source.addEventListener('gold', () => handlers.gold());
  source.addEventListener('open', () => handlers.live(true));
  source.addEventListener('error', () => {
    handlers.live(false);
    if (source.readyState === EventSource.CLOSED) handlers.refused();
  });
  return () => source.close();
}
