/** Shapes of the public fx API (services/fx/src/routes), as the page reads them. */
export interface RateEntry {
  currency: string;
  buy: number;
  sell: number;
  mid: number;
  timestampUtc: string;
  isManualOverride: boolean;
  /** The previous day's close; null without one. */
  previousMid: number | null;
}

export interface LatestRates {
  disclaimer: string;
  timestampUtc: string;
  cbsRates: RateEntry[];
  marketRates: RateEntry[];
  effectiveRates: RateEntry[];
}

export interface UsdBasedRates {
  disclaimer: string;
  base: 'USD';
  date: string | null;
  timestampUtc: string;
  rates: { currency: string; buy: number; sell: number; mid: number; timestampUtc: string }[];
}

interface Change24h {
  change24h: number | null;
  changePercent24h: number | null;
  timestampUtc: string;
}

export interface CryptoPrices {
  timestampUtc: string;
  prices: ({ symbol: string; name: string; priceUsd: number } & Change24h)[];
}

export interface GoldPrices {
  timestampUtc: string;
  prices: ({ unit: 'ounce' | 'gram'; karat: number; name: string; priceUsd: number; pricePerGramSyp: number | null } & Change24h)[];
}

export type RateSource = 'CBS' | 'MARKET';

export interface HistoryPoint {
  date: string;
  buy: number;
  sell: number;
  mid: number;
  open: number;
  high: number;
  low: number;
  close: number;
  denomination: 'SYP' | 'SYP_OLD';
  rescaled: boolean;
}

export interface RateHistory {
  currency: string;
  source: RateSource;
  startDate: string;
  endDate: string;
  points: HistoryPoint[];
}

interface SourceFreshness {
  lastUpdateUtc: string | null;
  stale: boolean;
}

export interface FxHealth {
  status: string;
  demo?: boolean;
  checks?: { sources?: Record<RateSource, SourceFreshness> };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    path: string,
  ) {
    super(`GET ${path} answered ${status}`);
  }
}

/** Last body and ETag per URL: a refresh sends If-None-Match and a 304 reuses the body. */
const validated = new Map<string, { etag: string; body: unknown }>();

/**
 * GET with ETag revalidation done here rather than by the HTTP cache (`no-store`): a 304
 * hands back the very same object, so a refresh that changed nothing re-renders nothing.
 */
export async function getJson<T>(path: string): Promise<T> {
  const known = validated.get(path);
  const response = await fetch(path, { cache: 'no-store', headers: known ? { 'If-None-Match': known.etag } : {} });
  if (response.status === 304 && known) return known.body as T;
  if (!response.ok) throw new ApiError(response.status, path);
  const body = (await response.json()) as T;
  const etag = response.headers.get('ETag');
  if (etag) validated.set(path, { etag, body });
  return body;
}

/** Crypto and gold are offered in ar, en and de only; the others read them in the nearest one. */
export function priceLanguage(language: string): 'ar' | 'en' | 'de' {
  if (language === 'ar' || language === 'ku') return 'ar';
  return language === 'de' ? 'de' : 'en';
}
