import { throwOnError } from '@svc/client-core';
import createClient, { type Client } from 'openapi-fetch';
import type {
  Conversion,
  ConvertQuery,
  CryptoPrices,
  CryptoQuery,
  FxHealth,
  GoldPrices,
  GoldQuery,
  HistoryQuery,
  LatestRates,
  LatestRatesQuery,
  paths,
  RateHistory,
  UsdBasedRates,
  UsdBasedRatesQuery,
} from './types.js';

export interface FxClientOptions {
  /** The service's origin, e.g. `https://fx.example.com`; `''` in a page served by fx itself. */
  baseUrl: string;
  /** An API client's public key (`svc_pub_…`) and private key (`svc_prv_…`): per-key limits and quotas instead of per-IP ones. */
  apiKey?: string;
  apiSecret?: string;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

type Gettable = {
  [Path in keyof paths]: paths[Path] extends { get: { responses: { 200: { content: { 'application/json': unknown } } } } } ? Path : never;
}[keyof paths];
type Body<Path extends Gettable> = paths[Path] extends { get: { responses: { 200: { content: { 'application/json': infer B } } } } } ? B : never;

export interface FxClient {
  /** The typed API (openapi-fetch), for the routes without a method below. */
  api: Client<paths>;
  latest(query?: LatestRatesQuery): Promise<LatestRates>;
  usdBased(query?: UsdBasedRatesQuery): Promise<UsdBasedRates>;
  history(query: HistoryQuery): Promise<RateHistory>;
  convert(query: ConvertQuery): Promise<Conversion>;
  crypto(query?: CryptoQuery): Promise<CryptoPrices>;
  gold(query?: GoldQuery): Promise<GoldPrices>;
  health(): Promise<FxHealth>;
}

/**
 * A client for the fx API. Every read revalidates with the ETag of its last answer for the
 * same URL: the service then answers 304 without a body, the call returns the very object it
 * returned before (so a UI that compares by identity re-renders nothing), and the request does
 * not count against a plan's monthly quota the way a full answer's bytes would.
 */
export function createFxClient(options: FxClientOptions): FxClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.apiSecret) headers['x-api-secret'] = options.apiSecret;
  const api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
  api.use(throwOnError);
  // Last body and ETag per URL (path and query): small, since a caller asks few distinct URLs.
  const validated = new Map<string, { etag: string; body: unknown }>();

  async function revalidated<Path extends Gettable>(path: Path, query: Record<string, unknown> | undefined): Promise<Body<Path>> {
    const key = `${path} ${JSON.stringify(query ?? {})}`;
    const known = validated.get(key);
    const init = { params: { query }, headers: known ? { 'if-none-match': known.etag } : {}, cache: 'no-store' as const };
    // The path's own parameter types are checked by the typed methods below; here one generic call serves them all.
    const { data, response } = await (api.GET as (path: string, init: unknown) => Promise<{ data?: unknown; response: Response }>)(path, init);
    if (response.status === 304 && known) return known.body as Body<Path>;
    const etag = response.headers.get('etag');
    if (etag) validated.set(key, { etag, body: data });
    return data as Body<Path>;
  }

  return {
    api,
    latest: (query) => revalidated('/api/v1/rates/latest', query),
    usdBased: (query) => revalidated('/api/v1/rates/usd-based', query),
    history: (query) => revalidated('/api/v1/rates/history', query),
    convert: (query) => revalidated('/api/v1/convert', query),
    crypto: (query) => revalidated('/api/v1/crypto/latest', query),
    gold: (query) => revalidated('/api/v1/gold/latest', query),
    health: () => revalidated('/api/v1/health', undefined),
  };
}
