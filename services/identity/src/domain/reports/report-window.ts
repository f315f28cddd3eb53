import { ValidationError } from '@svc/problem-json';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The spec's default window: the last 30 days. */
export const DEFAULT_WINDOW_DAYS = 30;
/**
 * The widest window one request may ask for: a leap year, so "this year" and "the last 12
 * months" always fit, while no single report scans a tenant's whole history.
 */
export const MAX_WINDOW_DAYS = 366;

/** Both ends inclusive, on `created_at`. */
export interface ReportWindow {
  from: Date;
  to: Date;
}

export interface ReportWindowQuery {
  from?: string | undefined;
  to?: string | undefined;
}

function invalid(parameter: 'from' | 'to', message: string): ValidationError {
  const path = `query.${parameter}`;
  return new ValidationError(`Request validation failed: ${path}: ${message}`, [{ path, message }]);
}

/**
 * The window a report covers. `to` defaults to now and `from` to 30 days before `to`, so
 * `?to=2025-01-31T00:00:00Z` alone means the 30 days up to then instead of an empty or
 * inverted window. The shape of each value (ISO 8601 with an offset) is checked by the
 * route's schema; here only what needs both ends, or the clock.
 */
export function resolveReportWindow(query: ReportWindowQuery, now: Date): ReportWindow {
  const to = query.to === undefined ? now : new Date(query.to);
  const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS) : new Date(query.from);
  if (Number.isNaN(to.getTime())) throw invalid('to', 'must be an ISO 8601 timestamp with an offset');
  if (Number.isNaN(from.getTime())) throw invalid('from', 'must be an ISO 8601 timestamp with an offset');
  if (from.getTime() > to.getTime()) throw invalid('from', 'must not be after to');
  if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS) throw invalid('from', `must be at most ${MAX_WINDOW_DAYS} days before to`);
  return { from, to };
}
