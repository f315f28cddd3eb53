import type { Quote } from './quotes.js';

/** One source's quotes as last fetched, with how old a quote may be before it is stale. */
export interface SourceQuotes {
  source: string;
  quotes: readonly Quote[];
  maxAgeMs: number;
}

/** A served price: the median of the agreeing fresh quotes, and who contributed. */
export interface CombinedPrice {
  key: string;
  value: number;
  buy?: number;
  sell?: number;
  name?: string;
  /** The newest contributing quote's time: the price is not newer than what it was computed from. */
  observedAt: Date;
  contributors: string[];
  proxy: boolean;
}

export interface CombineResult {
  served: CombinedPrice[];
  /** Prices with fresh quotes that did not reach agreement: the previous value stays, marked stale. */
  withheld: { key: string; reason: string }[];
  outliers: { key: string; source: string; value: number; medianOfOthers: number }[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

const deviationPercent = (value: number, reference: number) => (Math.abs(value - reference) / reference) * 100;

interface Candidate {
  source: string;
  quote: Quote;
  value: number;
}

/**
 * Drops, one at a time, the quote furthest from the median of the others while it is further
 * than maxDeviationPercent (one at a time, so a liar does not make an honest quote look far
 * off). Two quotes that disagree cannot be told apart: neither is kept.
 */
function agreeing(candidates: Candidate[], maxDeviationPercent: number, onOutlier: (candidate: Candidate, medianOfOthers: number) => void): Candidate[] {
  let kept = [...candidates];
  while (kept.length >= 3) {
    const scored = kept.map((candidate) => {
      const othersMedian = median(kept.filter((other) => other !== candidate).map((other) => other.value));
      return { candidate, othersMedian, deviation: deviationPercent(candidate.value, othersMedian) };
    });
    const worst = scored.reduce((a, b) => (b.deviation > a.deviation ? b : a));
    if (worst.deviation <= maxDeviationPercent) break;
    onOutlier(worst.candidate, worst.othersMedian);
    kept = kept.filter((candidate) => candidate !== worst.candidate);
  }
  const [a, b] = kept;
  if (kept.length === 2 && a && b && Math.max(deviationPercent(a.value, b.value), deviationPercent(b.value, a.value)) > maxDeviationPercent) {
    onOutlier(a, b.value);
    onOutlier(b, a.value);
    return [];
  }
  return kept;
}

/**
 * Combines every source's fresh quotes into served prices. `configuredFor(key)` is how many
 * sources are configured to quote that price: with three or more, at least two must agree.
 * USDT quotes become USD through the combined USDT/USD price of the sources quoting it in USD;
 * without one they are left out (never assumed to be 1).
 */
export function combineQuotes(input: { sources: readonly SourceQuotes[]; now: Date; maxDeviationPercent: number; configuredFor: (key: string) => number }): CombineResult {
  const result: CombineResult = { served: [], withheld: [], outliers: [] };
  const byKey = new Map<string, Candidate[]>();
  for (const { source, quotes, maxAgeMs } of input.sources) {
    for (const quote of quotes) {
      if (input.now.getTime() - quote.observedAt.getTime() > maxAgeMs) continue;
      const list = byKey.get(quote.key) ?? [];
      list.push({ source, quote, value: quote.value });
      byKey.set(quote.key, list);
    }
  }
  const combineKey = (key: string, candidates: Candidate[]): CombinedPrice | null => {
    if (candidates.length === 0) return null;
    const kept = agreeing(candidates, input.maxDeviationPercent, (candidate, medianOfOthers) => result.outliers.push({ key, source: candidate.source, value: candidate.value, medianOfOthers }));
    const required = input.configuredFor(key) >= 3 ? 2 : 1;
    if (kept.length < required) {
      result.withheld.push({ key, reason: `${kept.length} of ${candidates.length} fresh quotes agree; ${required} needed` });
      return null;
    }
    const buys = kept.flatMap((candidate) => (candidate.quote.buy === undefined ? [] : [candidate.quote.buy]));
    const sells = kept.flatMap((candidate) => (candidate.quote.sell === undefined ? [] : [candidate.quote.sell]));
    const name = kept.find((candidate) => candidate.quote.name)?.quote.name;
    return {
      key,
      value: median(kept.map((candidate) => candidate.value)),
      ...(buys.length === kept.length ? { buy: median(buys) } : {}),
      ...(sells.length === kept.length ? { sell: median(sells) } : {}),
      ...(name ? { name } : {}),
      observedAt: new Date(Math.max(...kept.map((candidate) => candidate.quote.observedAt.getTime()))),
      contributors: [...new Set(kept.map((candidate) => candidate.source))].sort(),
      proxy: kept.every((candidate) => candidate.quote.proxy === true),
    };
  };

  const usdtInUsd = combineKey('crypto:USDT', (byKey.get('crypto:USDT') ?? []).filter((candidate) => candidate.quote.denomination === 'USD'));
  if (usdtInUsd) result.served.push(usdtInUsd);
  for (const [key, candidates] of byKey) {
    if (key === 'crypto:USDT') continue;
    const inUsd = candidates.flatMap((candidate) => {
      if (candidate.quote.denomination === 'USD') return [candidate];
      return usdtInUsd ? [{ ...candidate, value: candidate.value * usdtInUsd.value }] : [];
    });
    if (inUsd.length === 0) {
      result.withheld.push({ key, reason: 'only USDT quotes and no USDT/USD price to convert them' });
      continue;
    }
    const combined = combineKey(key, inUsd);
    if (combined) result.served.push(combined);
  }
  return result;
}
