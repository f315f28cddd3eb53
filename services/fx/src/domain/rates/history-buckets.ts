import { encodeCsv } from '@svc/csv';
import type { HistoryPoint } from './history.js';

export const HISTORY_INTERVALS = ['day', 'week', 'month'] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];

const DAY_MS = 86_400_000;

/** The first UTC day of the bucket holding `date` (YYYY-MM-DD): the Monday of its ISO week, or the 1st of its month. */
export function bucketStart(date: string, interval: HistoryInterval): string {
  if (interval === 'day') return date;
  if (interval === 'month') return `${date.slice(0, 7)}-01`;
  const day = new Date(`${date}T00:00:00.000Z`);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Daily points (oldest first) folded into weeks or months: open/close the first and last
 * daily close, high/low the extremes, buy/sell/mid those of the last day. Values already in
 * one pound stay comparable; with denomination=original a bucket that spans the redenomination
 * is split there, its new-pound part dated on its first day with data.
 */
export function bucketHistory(points: HistoryPoint[], interval: HistoryInterval): HistoryPoint[] {
  if (interval === 'day') return points;
  const buckets = new Map<string, HistoryPoint[]>();
  const firstDayOf = new Map<string, string>();
  for (const point of points) {
    const start = bucketStart(point.date, interval);
    const key = `${start}:${point.denomination}`;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(point);
    else {
      buckets.set(key, [point]);
      // The old-pound part keeps the bucket's first day; a new-pound part after it is dated on its own first day.
      const oldPart = point.denomination === 'SYP' && buckets.has(`${start}:SYP_OLD`);
      firstDayOf.set(key, oldPart ? point.date : start);
    }
  }
  return [...buckets.entries()].map(([key, days]) => {
    const first = days[0] as HistoryPoint;
    const last = days[days.length - 1] as HistoryPoint;
    return {
      date: firstDayOf.get(key) ?? first.date,
      buy: last.buy,
      sell: last.sell,
      mid: last.mid,
      open: first.close,
      high: Math.max(...days.map((day) => day.high)),
      low: Math.min(...days.map((day) => day.low)),
      close: last.close,
      denomination: last.denomination,
      rescaled: days.some((day) => day.rescaled),
    };
  });
}

const HISTORY_FIELDS = ['date', 'buy', 'sell', 'mid', 'open', 'high', 'low', 'close', 'denomination', 'rescaled'] as const satisfies readonly (keyof HistoryPoint)[];

/** RFC 4180: a header row naming the point's fields, CRLF after every row. */
export function historyCsv(points: HistoryPoint[]): string {
  return encodeCsv(HISTORY_FIELDS, points);
}

/** One JSON point per line (application/x-ndjson). */
export function historyNdjson(points: HistoryPoint[]): string {
  return points.map((point) => `${JSON.stringify(point)}\n`).join('');
}
