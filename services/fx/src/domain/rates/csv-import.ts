import { CsvSyntaxError, parseCsv } from '@svc/csv';
import { ValidationError } from '@svc/problem-json';
import { ingestRates, type RateInput } from './ingest-rates.js';
import type { FxExecutor } from '../../db/executor.js';
import { RATE_SOURCES, type RateChangeListener, type RateSource } from './rate-types.js';
import type { LiveRecorder } from '../live/live-recorder.js';

const HEADER = ['source', 'currency', 'buy', 'sell', 'mid', 'timestampUtc'];

/**
 * CSV `source,currency,buy,sell,mid,timestampUtc` (mid may be empty). Rows with the same
 * source and timestamp form one ingestion, so validation and the outbox see them as the
 * admin API would. Errors name the CSV line.
 */
export async function importRatesCsv(tx: FxExecutor, text: string, options: { force: boolean; now: Date; onRateChanged: RateChangeListener; live?: LiveRecorder }): Promise<{ rows: number; batches: number }> {
  const records = readCsv(text);
  const [header, ...rowsRead] = records;
  if (header?.line !== 1 || header.cells.join(',').toLowerCase() !== HEADER.join(',').toLowerCase()) throw new ValidationError(`The first line must be the header ${HEADER.join(',')}.`, [{ path: 'line 1', message: 'bad header' }]);
  const batches = new Map<string, { source: RateSource; observedAt: Date; rates: RateInput[] }>();
  let rows = 0;
  for (const { line: lineNumber, cells } of rowsRead) {
    const [source = '', currency = '', buy = '', sell = '', mid = '', timestamp = ''] = cells;
    const observedAt = new Date(timestamp);
    if (cells.length !== HEADER.length || !isRateSource(source) || Number.isNaN(observedAt.getTime()) || !/Z$/.test(timestamp)) {
      throw new ValidationError(`Line ${lineNumber} is invalid.`, [{ path: `line ${lineNumber}`, message: `${HEADER.length} cells; source must be ${RATE_SOURCES.join(' or ')} and timestampUtc ISO 8601 ending in Z` }]);
    }
    const key = `${source}|${observedAt.toISOString()}`;
    const batch = batches.get(key) ?? { source, observedAt, rates: [] };
    batch.rates.push({ currency: currency.toUpperCase(), buy: Number(buy), sell: Number(sell), mid: mid === '' ? undefined : Number(mid) });
    batches.set(key, batch);
    rows += 1;
  }
  const ordered = [...batches.values()].sort((left, right) => left.observedAt.getTime() - right.observedAt.getTime());
  const changed = { CBS: new Set<string>(), MARKET: new Set<string>() };
  for (const batch of ordered) {
    const accepted = await ingestRates(tx, { ...batch, force: options.force }, options.now, options.onRateChanged);
    for (const rate of accepted) changed[batch.source].add(rate.currency);
  }
  // Live streams get the imported rates as they are served now, once per source, as the admin API sends them.
  for (const source of RATE_SOURCES) {
    if (changed[source].size > 0) await options.live?.ratesChanged(tx, { kind: source, currencies: [...changed[source]] }, options.now);
  }
  return { rows, batches: ordered.length };
}

function isRateSource(value: string): value is RateSource {
  return (RATE_SOURCES as readonly string[]).includes(value);
}

/** The file's records, or a 400 naming the line where it stops being CSV (an unterminated quote, a stray quote). */
function readCsv(text: string) {
  try {
    return parseCsv(text);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    throw new ValidationError(`Line ${error.line} is not valid CSV.`, [{ path: `line ${error.line}`, message: error.message }]);
  }
}
