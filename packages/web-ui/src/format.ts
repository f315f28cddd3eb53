import type { Language } from './i18n.js';

/**
 * Every number and date the portal shows goes through here, so both languages format alike.
 * Arabic uses Intl's own 'ar' numbering (Arabic-Indic digits) and the Gregorian calendar;
 * identifiers (case ids, thumbprints) are never formatted and stay as the API gives them.
 */
const EMPTY = '—';

const locale = (language: Language) => (language === 'ar' ? 'ar-u-ca-gregory' : 'en-GB');

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let format = cache.get(key) as T | undefined;
  if (!format) cache.set(key, (format = make()));
  return format;
}

function parse(iso: string | null | undefined): Date | undefined {
  if (!iso) return undefined;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** 23 Nov 2026, 14:05 in the browser's time zone; '—' for null. */
export function formatDateTime(iso: string | null | undefined, language: Language): string {
  const date = parse(iso);
  if (!date) return EMPTY;
  return cached(`dt:${language}`, () => new Intl.DateTimeFormat(locale(language), { dateStyle: 'medium', timeStyle: 'short' })).format(date);
}

/** 23 Nov 2026; '—' for null. A bare 'YYYY-MM-DD' is read as that calendar day, not UTC midnight. */
export function formatDate(iso: string | null | undefined, language: Language): string {
  const date = iso && /^\d{4}-\d{2}-\d{2}$/.test(iso) ? parse(`${iso}T12:00:00`) : parse(iso);
  if (!date) return EMPTY;
  return cached(`d:${language}`, () => new Intl.DateTimeFormat(locale(language), { dateStyle: 'medium' })).format(date);
}

export function formatNumber(value: number | null | undefined, language: Language, digits?: number): string {
  if (value === null || value === undefined || Number.isNaN(value)) return EMPTY;
  const options: Intl.NumberFormatOptions = digits === undefined ? { maximumFractionDigits: 3 } : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  return cached(`n:${language}:${digits ?? ''}`, () => new Intl.NumberFormat(locale(language), options)).format(value);
}

/** A fraction (0.873) as a percentage (87.3 %). */
export function formatPercent(fraction: number | null | undefined, language: Language, digits = 1): string {
  if (fraction === null || fraction === undefined || Number.isNaN(fraction)) return EMPTY;
  return cached(`p:${language}:${digits}`, () => new Intl.NumberFormat(locale(language), { style: 'percent', minimumFractionDigits: 0, maximumFractionDigits: digits })).format(fraction);
}

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

export function formatBytes(bytes: number | null | undefined, language: Language): string {
  if (bytes === null || bytes === undefined || Number.isNaN(bytes)) return EMPTY;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const name = BYTE_UNITS[unit]!;
  // 'short' renders "71 byte" in English; 'long' gives "71 bytes", while kB/MB stay short.
  return cached(`b:${language}:${name}`, () => new Intl.NumberFormat(locale(language), { style: 'unit', unit: name, unitDisplay: unit === 0 ? 'long' : 'short', maximumFractionDigits: unit === 0 ? 0 : 1 })).format(value);
}
