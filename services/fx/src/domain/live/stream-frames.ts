import { disclaimerFor, type Language } from '../../i18n/languages.js';
import type { RateEntry } from '../rates/latest-rates.js';
import { RATE_SOURCES } from '../rates/rate-types.js';
import type { StreamEvent } from './stream-events.js';

export const STREAM_SOURCES = [...RATE_SOURCES, 'crypto', 'gold'] as const;
export type StreamSource = (typeof STREAM_SOURCES)[number];

/** What one stream asked for; streams with equal filters share each event's encoded frame. */
export interface StreamFilter {
  language: Language;
  /** Sorted; null = every currency. */
  currencies: readonly string[] | null;
  sources: ReadonlySet<StreamSource>;
}

export function filterKey(filter: StreamFilter): string {
  return `${filter.language}|${filter.currencies?.join(',') ?? '*'}|${[...filter.sources].sort().join(',')}`;
}

/** One SSE event. JSON never holds a raw line break, so the data is always a single `data:` line. */
export function sseFrame(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

interface RatesPayload {
  timestampUtc: string;
  cbsRates: RateEntry[];
  marketRates: RateEntry[];
  effectiveRates: RateEntry[];
}

interface PricesPayload {
  timestampUtc: string;
  prices: unknown[] | Partial<Record<Language, unknown[]>>;
}

/**
 * The frame a stored change becomes for one filter, in the shape of the matching endpoint
 * (/rates/latest holding only the changed entries, /crypto/latest, /gold/latest); null when
 * nothing in it was asked for.
 */
export function changeFrame(event: StreamEvent, filter: StreamFilter): string | null {
  const disclaimer = disclaimerFor(filter.language);
  if (event.kind === 'rates') {
    const payload = event.payload as RatesPayload;
    const keep = (entries: RateEntry[], source: StreamSource) =>
      filter.sources.has(source) ? (filter.currencies ? entries.filter((entry) => filter.currencies?.includes(entry.currency)) : entries) : [];
    const body = {
      disclaimer,
      timestampUtc: payload.timestampUtc,
      cbsRates: keep(payload.cbsRates, 'CBS'),
      marketRates: keep(payload.marketRates, 'MARKET'),
      effectiveRates: keep(payload.effectiveRates, 'MARKET'),
    };
    if (body.cbsRates.length + body.marketRates.length + body.effectiveRates.length === 0) return null;
    return sseFrame(event.id, 'rates', JSON.stringify(body));
  }
  if (!filter.sources.has(event.kind)) return null;
  const payload = event.payload as PricesPayload;
  const prices = Array.isArray(payload.prices) ? payload.prices : (payload.prices[filter.language] ?? []);
  if (prices.length === 0) return null;
  return sseFrame(event.id, event.kind, JSON.stringify({ disclaimer, timestampUtc: payload.timestampUtc, prices }));
}
