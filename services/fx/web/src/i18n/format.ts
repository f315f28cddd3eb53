import { INTL_LOCALE, type Language } from '@svc/fx-client/types';

/** Dates and times are shown in Damascus time, the readers' clock. */
export const TIME_ZONE = 'Asia/Damascus';

export interface Formatters {
  locale: string;
  /** A rate or price with decimals suited to its size (0.0016 LBP needs more than 131.25). */
  amount(value: number): string;
  whole(value: number): string;
  percent(value: number): string;
  signedPercent(value: number): string;
  dateTime(iso: string): string;
  /** A YYYY-MM-DD calendar day (UTC), shown as that day. */
  day(isoDay: string): string;
  shortDay(isoDay: string): string;
  currencyName(code: string): string;
}

const cache = new Map<Language, Formatters>();

export function formattersFor(language: Language): Formatters {
  const cached = cache.get(language);
  if (cached) return cached;
  const locale = INTL_LOCALE[language];
  const byDecimals = new Map<number, Intl.NumberFormat>();
  const numberWith = (decimals: number) => {
    let format = byDecimals.get(decimals);
    if (!format) {
      format = new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
      byDecimals.set(decimals, format);
    }
    return format;
  };
  const percent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const signedPercent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'exceptZero' });
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: TIME_ZONE });
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  // Numeric day and month: month names (تشرين الأول) are too long for a phone's chart axis.
  const shortDay = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'numeric', timeZone: 'UTC' });
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames([locale, 'en'], { type: 'currency' });
  } catch {
    names = null;
  }
  const formatters: Formatters = {
    locale,
    amount: (value) => numberWith(Math.abs(value) >= 100 ? 2 : Math.abs(value) >= 1 ? 3 : Math.abs(value) >= 0.01 ? 4 : 6).format(value),
    whole: (value) => numberWith(0).format(value),
    percent: (value) => percent.format(value / 100),
    signedPercent: (value) => signedPercent.format(value / 100),
    dateTime: (iso) => dateTime.format(new Date(iso)),
    day: (isoDay) => day.format(new Date(`${isoDay}T00:00:00Z`)),
    shortDay: (isoDay) => shortDay.format(new Date(`${isoDay}T00:00:00Z`)),
    currencyName: (code) => names?.of(code) ?? code,
  };
  cache.set(language, formatters);
  return formatters;
}

/**
 * Accepts Arabic-Indic and Persian digits and the Arabic separators as typed on phones. With
 * both `.` and `,` present the later one is the decimal mark (1,250.5 and 1.250,5); alone,
 * either is a decimal mark, since amounts are typed, not pasted from statements.
 */
export function parseAmount(text: string): number | null {
  let normalised = text
    .trim()
    .replace(/[\u0660-\u0669]/g, (digit) => String(digit.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (digit) => String(digit.charCodeAt(0) - 0x06f0))
    .replace(/[\u066c\s\u00a0\u202f']/g, '')
    .replace(/\u066b/g, '.');
  const lastDot = normalised.lastIndexOf('.');
  const lastComma = normalised.lastIndexOf(',');
  const grouping = lastDot >= 0 && lastComma >= 0 ? (lastDot > lastComma ? ',' : '.') : null;
  if (grouping) normalised = normalised.split(grouping).join('');
  normalised = normalised.replace(',', '.');
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(normalised)) return null;
  const value = Number(normalised);
  return Number.isFinite(value) ? value : null;
}
