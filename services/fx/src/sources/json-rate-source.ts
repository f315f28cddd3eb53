import { z } from 'zod';
import type { IngestRatesInput } from '../domain/rates/ingest-rates.js';
import type { RateSource } from '../domain/rates/rate-types.js';

/** An upstream source: fetches and translates its payload into one ingestion. */
export interface RateSourceAdapter {
  readonly source: RateSource;
  fetchRates(signal: AbortSignal): Promise<IngestRatesInput>;
}

const upstreamPayload = z.object({
  timestampUtc: z.iso.datetime().optional(),
  rates: z.array(z.object({ currency: z.string(), buy: z.number(), sell: z.number(), mid: z.number().optional() })).min(1),
});

/** Adapter for an upstream serving `{timestampUtc?, rates: [{currency, buy, sell, mid?}]}` as JSON. */
export function jsonRateSource(source: RateSource, url: string): RateSourceAdapter {
  return {
    source,
    async fetchRates(signal) {
      const response = await fetch(url, { signal, headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`upstream ${source} answered ${response.status}`);
      const payload = upstreamPayload.parse(await response.json());
      return {
        source,
        observedAt: payload.timestampUtc ? new Date(payload.timestampUtc) : undefined,
        rates: payload.rates.map((rate) => ({ ...rate, currency: rate.currency.toUpperCase() })),
      };
    },
  };
}
