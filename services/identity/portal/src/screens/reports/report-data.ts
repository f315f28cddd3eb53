import { api, ApiError, apiUrl } from '@svc/web-ui/api';
import type { Language } from '@svc/web-ui/i18n';
import type { ReportSummary } from '@svc/identity-client/types';

export { CASE_STATUSES } from '@svc/identity-client/types';
export type { CaseStatus, ReportSummary } from '@svc/identity-client/types';

/** Days as the date inputs hold them (YYYY-MM-DD, the browser's local calendar), both inclusive. */
export interface DayRange {
  from: string;
  to: string;
}

export const DEFAULT_RANGE_DAYS = 30;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** YYYY-MM-DD of an instant in the browser's time zone. */
export function localDay(instant: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${instant.getFullYear()}-${pad(instant.getMonth() + 1)}-${pad(instant.getDate())}`;
}

/** Local midnight starting a YYYY-MM-DD day. */
export function startOfLocalDay(day: string): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date);
}

function addDays(day: string, days: number): string {
  const start = startOfLocalDay(day);
  return localDay(new Date(start.getFullYear(), start.getMonth(), start.getDate() + days));
}

/** The last 30 days, today included. */
export function defaultRange(today: Date): DayRange {
  const to = localDay(today);
  return { from: addDays(to, -(DEFAULT_RANGE_DAYS - 1)), to };
}

/** The range in the URL's query when both days are well formed, else the default. */
export function rangeFromQuery(query: URLSearchParams, today: Date): DayRange {
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  return DAY_PATTERN.test(from) && DAY_PATTERN.test(to) ? { from, to } : defaultRange(today);
}

/**
 * The API's window for whole local days: from the first day's midnight to the instant before
 * the day after the last, as UTC ISO 8601 (the API wants an offset; Z is one).
 */
export function windowOf(range: DayRange): { from: string; to: string } {
  const end = startOfLocalDay(addDays(range.to, 1));
  return { from: startOfLocalDay(range.from).toISOString(), to: new Date(end.getTime() - 1).toISOString() };
}

/** Every day of the range in order (for a chart with no gaps on days without cases). */
export function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  for (let day = range.from; day <= range.to && days.length <= 400; day = addDays(day, 1)) days.push(day);
  return days;
}

/**
 * "25 Oct" for a chart axis, where the full date of format.ts does not fit 30 times. The same
 * locales as format.ts (Arabic with the Gregorian calendar), which keeps them private.
 */
export function shortDay(day: string, language: Language): string {
  return new Intl.DateTimeFormat(language === 'ar' ? 'ar-u-ca-gregory' : 'en-GB', { day: 'numeric', month: 'short' }).format(startOfLocalDay(day));
}

export const fetchSummary = (range: DayRange) => api<ReportSummary>('GET', '/reports/summary', { query: windowOf(range) });

export const exportUrl = (range: DayRange) => apiUrl('/reports/export', windowOf(range));

/** RFC 4180 records (quoted fields with doubled quotes, CRLF or LF line ends). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[index + 1] === '\n') index += 1;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}

export interface CasesPerDay {
  days: string[];
  counts: number[];
  /** Rows the export held, and every case of the window (they differ when the export is capped). */
  counted: number;
  total: number;
}

/** Cases per local day of the range, from the export's CreatedAt column. */
export function countCasesPerDay(csv: string, range: DayRange, totalCount: number): CasesPerDay {
  const [header, ...rows] = parseCsv(csv);
  const column = header?.indexOf('CreatedAt') ?? -1;
  const days = daysOf(range);
  const countByDay = new Map(days.map((day) => [day, 0]));
  let counted = 0;
  for (const row of rows) {
    const createdAt = column >= 0 ? row[column] : undefined;
    if (!createdAt) continue;
    const day = localDay(new Date(createdAt));
    const count = countByDay.get(day);
    if (count === undefined) continue;
    countByDay.set(day, count + 1);
    counted += 1;
  }
  return { days, counts: days.map((day) => countByDay.get(day) ?? 0), counted, total: Math.max(totalCount, counted) };
}

/**
 * The summary has no per-day series, so the days are counted from the CSV export of the same
 * window (the cookie goes with a same-origin fetch). Capped at the export's 5,000 rows, which
 * the screen says when it happens.
 */
export async function fetchCasesPerDay(range: DayRange): Promise<CasesPerDay> {
  const response = await fetch(exportUrl(range), { credentials: 'same-origin', headers: { accept: 'text/csv' } });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as ConstructorParameters<typeof ApiError>[1];
    throw new ApiError(response.status, problem);
  }
  const total = Number(response.headers.get('x-total-count') ?? '0');
  return countCasesPerDay(await response.text(), range, total);
}
