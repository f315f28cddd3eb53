import { parseCsvObjects } from '@svc/csv';
import { JSONPath } from 'jsonpath-plus';
import { z } from 'zod';
import { cryptoKey, GOLD_KEY, rateKey, type Quote } from './quotes.js';
import type { SourceDefinition } from './sources-file.js';

/** The payload as JSON, or CSV rows (first line: column names) as an array of records. */
export function decodePayload(body: string, format: 'json' | 'csv'): unknown {
  if (format === 'csv') return parseCsvObjects(body);
  return JSON.parse(body) as unknown;
}

const first = (path: string | undefined, record: unknown): unknown => {
  if (path === undefined || record === null || typeof record !== 'object') return undefined;
  const found = JSONPath({ path, json: record, wrap: true }) as unknown[];
  return found[0];
};

const price = z.coerce.number().positive().finite();
const optionalTimestamp = z.union([z.iso.datetime({ offset: true }).transform((text) => new Date(text)), z.number().int().positive().transform((epoch) => new Date(epoch < 1e12 ? epoch * 1000 : epoch))]).optional();

/**
 * A declarative source's quotes: `mapping.items` selects the records (default: the payload
 * itself, or every CSV row), the other paths are read relative to each record. A record
 * whose fields do not parse fails the whole fetch: a half-read payload is not ingested.
 */
export function declarativeQuotes(source: SourceDefinition, payload: unknown, fetchedAt: Date): Quote[] {
  const mapping = source.mapping ?? {};
  const records = JSONPath({ path: mapping.items ?? (Array.isArray(payload) ? '$[*]' : '$'), json: payload as object, wrap: true }) as unknown[];
  if (records.length === 0) throw new Error(`${source.name}: mapping.items matched nothing`);
  return records.map((record, index) => {
    const read = <T>(field: keyof typeof mapping, schema: z.ZodType<T>): T => {
      const parsed = schema.safeParse(first(mapping[field], record));
      if (!parsed.success) throw new Error(`${source.name}: record ${index} ${field} (${mapping[field] ?? 'unmapped'}) ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
      return parsed.data;
    };
    const observedAt = read('timestampUtc', optionalTimestamp) ?? fetchedAt;
    if (source.kind === 'crypto') {
      const symbol = read('symbol', z.string().trim().toUpperCase().regex(/^[A-Z0-9]{2,10}$/, 'must be a coin symbol'));
      const name = read('name', z.string().trim().min(1).max(100).optional());
      return { key: cryptoKey(symbol), value: read('priceUsd', price), denomination: 'USD', ...(name ? { name } : {}), observedAt };
    }
    if (source.kind === 'gold') return { key: GOLD_KEY, value: read('priceUsd', price), denomination: 'USD', observedAt };
    const currency = read('currency', z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, 'must be a currency code'));
    const buy = read('buy', price);
    const sell = read('sell', price);
    const mid = read('mid', price.optional()) ?? (buy + sell) / 2;
    return { key: rateKey(source.rateSource ?? 'MARKET', currency), value: mid, buy, sell, denomination: 'USD', observedAt };
  });
}
