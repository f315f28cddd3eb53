import { getOnce, type FetchResult } from '@svc/outbound-http';
import type { Dispatcher } from 'undici';
import { CONNECTORS, EXCHANGE_CONNECTORS } from './connectors/index.js';
import type { ConnectorContext } from './connectors/connector.js';
import { declarativeQuotes, decodePayload } from './declarative.js';
import { cryptoKey, GOLD_KEY, type Quote } from './quotes.js';
import type { ResolvedSource } from './sources-file.js';

export const SOURCES_USER_AGENT = 'partner-services-fx-sources/1 (+https://github.com/partner-services)';
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export interface FetchOutcome {
  quotes: Quote[];
  http: FetchResult;
}

/** A failed fetch; retryAfterMs when the source said how long to wait (429, 503). */
export class SourceFetchError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    readonly rateLimited = false,
  ) {
    super(message);
    this.name = 'SourceFetchError';
  }
}

/** The coins a connector source asks for; a gold entry of an exchange asks for PAXG only. */
export function symbolsOf(source: ResolvedSource): readonly string[] {
  if (!source.connector) return [];
  if (source.kind === 'gold' && EXCHANGE_CONNECTORS.includes(source.connector)) return ['PAXG'];
  return source.symbols ?? CONNECTORS[source.connector].defaultSymbols;
}

/**
 * Fetches a source once and translates its payload into quotes. Throws SourceFetchError on a
 * network failure, an error status or a payload that is not the documented (or mapped) shape:
 * nothing of a refused payload is used.
 */
export async function fetchSourceQuotes(source: ResolvedSource, options: { dispatcher: Dispatcher; allowPrivateTargets: boolean; timeoutMs: number; now: () => Date }): Promise<FetchOutcome> {
  const fetchedAt = options.now();
  const context: ConnectorContext = { symbols: symbolsOf(source), apiKey: source.apiKey, baseUrl: source.baseUrl, fetchedAt };
  const connector = source.connector ? CONNECTORS[source.connector] : undefined;
  const request = connector ? connector.request(context) : { url: source.url ?? '', headers: {} };
  const http = await getOnce({
    url: request.url,
    headers: { ...request.headers, ...source.resolvedHeaders },
    dispatcher: options.dispatcher,
    policy: { allowPrivateTargets: options.allowPrivateTargets },
    timeoutMs: options.timeoutMs,
    userAgent: SOURCES_USER_AGENT,
    maxBytes: MAX_ANSWER_BYTES,
  });
  if (http.status === 0) throw new SourceFetchError(http.error ?? 'no answer');
  if (http.status === 429) throw new SourceFetchError('answered 429 (rate limited)', http.retryAfterMs, true);
  if (http.status < 200 || http.status > 299) throw new SourceFetchError(`answered ${http.status}`, http.retryAfterMs);
  let payload: unknown;
  try {
    payload = decodePayload(http.body ?? '', connector ? 'json' : source.format);
  } catch (error) {
    throw new SourceFetchError(`unreadable ${connector ? 'json' : source.format} payload: ${(error as Error).message.split('\n')[0]}`);
  }
  let quotes: Quote[];
  try {
    quotes = connector ? connector.parse(payload, context) : declarativeQuotes(source, payload, fetchedAt);
  } catch (error) {
    const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
    const detail = issues?.[0] ? `${issues[0].path.map(String).join('.') || 'payload'}: ${issues[0].message}` : (error as Error).message;
    throw new SourceFetchError(`payload refused (${detail})`);
  }
  if (quotes.length === 0) throw new SourceFetchError('payload held none of the prices asked for');
  // An exchange as a gold source: its PAXG price stands in for a fine troy ounce, labelled a proxy.
  if (source.kind === 'gold' && connector && EXCHANGE_CONNECTORS.includes(source.connector ?? 'goldapi')) {
    quotes = quotes.filter((quote) => quote.key === cryptoKey('PAXG')).map((quote) => ({ ...quote, key: GOLD_KEY, proxy: true }));
  }
  return { quotes, http };
}
