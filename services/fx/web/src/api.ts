/** The page's calls to the public fx API; the shapes come from the client generated from the served OpenAPI document. */
import type { Language, PriceLanguage } from '@svc/fx-client/types';

export type { CryptoPrices, FxHealth, GoldPrices, HistoryPoint, LatestRates, RateEntry, RateHistory, RateSource, UsdBasedRates } from '@svc/fx-client/types';

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

/** Crypto and gold are offered in fewer languages; the others read them in the nearest one. */
export function priceLanguage(language: Language): PriceLanguage {
  if (language === 'ar' || language === 'ku') return 'ar';
  return language === 'de' ? 'de' : 'en';
}
