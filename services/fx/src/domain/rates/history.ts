import { ValidationError } from '@svc/problem-json';
import { and, asc, eq, gte, lt } from 'drizzle-orm';
import { rateObservations } from '../../db/schema.js';
import { roundRate } from './currencies.js';
import { fromFixedPoint, toFixedPoint } from './decimal.js';
import type { FxExecutor } from '../../db/executor.js';
import type { RateSource } from './rate-types.js';
import { bucketHistory, type HistoryInterval } from './history-buckets.js';

export const MAX_HISTORY_DAYS = 3650;
const DAY_MS = 86_400_000;

export interface HistoryQuery {
  currency: string;
  source: RateSource;
  days: number;
  startDate?: string | undefined;
  endDate?: string | undefined;
  denomination: 'current' | 'original';
  interval?: HistoryInterval | undefined;
}

export interface Redenomination {
  date: Date;
  factor: number;
}

/** An amount in old pounds (stored for a date before the redenomination) in new ones, exactly. */
export function inNewPounds(amount: string, redenomination: Redenomination): string {
  return fromFixedPoint(toFixedPoint(amount) / BigInt(redenomination.factor));
}

export interface HistoryPoint {
  date: string;
  buy: number;
  sell: number;
  mid: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** The pound the values are expressed in: SYP (current) or SYP_OLD (before the redenomination). */
  denomination: 'SYP' | 'SYP_OLD';
  rescaled: boolean;
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** startDate/endDate win over days; one of them alone is completed with days (end defaults to today). */
export function resolveHistoryRange(query: HistoryQuery, now: Date): { start: Date; end: Date } {
  const end = query.endDate ? new Date(`${query.endDate}T00:00:00.000Z`) : new Date(`${isoDay(now)}T00:00:00.000Z`);
  const start = query.startDate ? new Date(`${query.startDate}T00:00:00.000Z`) : new Date(end.getTime() - (query.days - 1) * DAY_MS);
  if (start > end) throw new ValidationError('startDate must not be after endDate.', [{ path: 'query.startDate', message: 'must be on or before endDate' }]);
  if ((end.getTime() - start.getTime()) / DAY_MS + 1 > MAX_HISTORY_DAYS) {
    throw new ValidationError(`The range spans more than ${MAX_HISTORY_DAYS} days.`, [{ path: 'query.startDate', message: `range must not exceed ${MAX_HISTORY_DAYS} days` }]);
  }
  return { start, end };
}

/**
 * One point per UTC day with data: the day's last observation as buy/sell/mid and close,
 * OHLC of mid. Days before the redenomination are divided by its factor (exact decimal)
 * unless `denomination=original` asks for the values as published.
 */
export async function loadHistory(db: FxExecutor, query: HistoryQuery, now: Date, redenomination: Redenomination) {
  const { start, end } = resolveHistoryRange(query, now);
  const rows = await db
    .select({ buy: rateObservations.buy, sell: rateObservations.sell, mid: rateObservations.mid, observedAt: rateObservations.observedAt })
    .from(rateObservations)
    .where(
      and(
        eq(rateObservations.currency, query.currency),
        eq(rateObservations.source, query.source),
        gte(rateObservations.observedAt, start),
        lt(rateObservations.observedAt, new Date(end.getTime() + DAY_MS)),
      ),
    )
    .orderBy(asc(rateObservations.observedAt));

  const byDay = new Map<string, typeof rows>();
  for (const row of rows) {
    const day = isoDay(row.observedAt);
    byDay.set(day, [...(byDay.get(day) ?? []), row]);
  }
  const points: HistoryPoint[] = [];
  for (const [date, dayRows] of byDay) {
    const old = dayRows[0] !== undefined && dayRows[0].observedAt < redenomination.date;
    const rescale = old && query.denomination === 'current';
    const value = (text: string) => roundRate(rescale ? inNewPounds(text, redenomination) : text, query.currency);
    const mids = dayRows.map((row) => value(row.mid));
    const last = dayRows[dayRows.length - 1] ?? dayRows[0];
    if (!last) continue;
    points.push({
      date,
      buy: value(last.buy),
      sell: value(last.sell),
      mid: value(last.mid),
      open: mids[0] ?? 0,
      high: Math.max(...mids),
      low: Math.min(...mids),
      close: mids[mids.length - 1] ?? 0,
      denomination: old && !rescale ? 'SYP_OLD' : 'SYP',
      rescaled: rescale,
    });
  }
  const interval = query.interval ?? 'day';
  return { currency: query.currency, source: query.source, startDate: isoDay(start), endDate: isoDay(end), denomination: query.denomination, interval, points: bucketHistory(points, interval) };
}
