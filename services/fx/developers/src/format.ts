import { INTL_LOCALE, type Language } from '@svc/fx-client/types';

export interface Formatters {
  whole(value: number): string;
  /** A rate or percent as entered: up to the eight decimals a stored rate has. */
  decimal(value: number): string;
  /** An instant, with its time zone named (the quota resets at a UTC instant). */
  instant(iso: string): string;
  /** An instant to the second, for logs whose entries are seconds apart. */
  moment(iso: string): string;
  /** A YYYY-MM-DD calendar day (UTC), shown as that day. */
  day(isoDay: string): string;
  shortDay(isoDay: string): string;
}

const cache = new Map<Language, Formatters>();

/** The dashboard's figures and dates in the reader's language; days are UTC days, as the API counts them. */
export function formattersFor(language: Language): Formatters {
  const cached = cache.get(language);
  if (cached) return cached;
  const locale = INTL_LOCALE[language];
  const whole = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 8 });
  // Fields rather than dateStyle, which Intl refuses beside timeZoneName.
  const instant = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' });
  const moment = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: 'UTC', timeZoneName: 'short' });
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const shortDay = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'numeric', timeZone: 'UTC' });
  const formatters: Formatters = {
    whole: (value) => whole.format(value),
    decimal: (value) => decimal.format(value),
    instant: (iso) => instant.format(new Date(iso)),
    moment: (iso) => moment.format(new Date(iso)),
    day: (isoDay) => day.format(new Date(`${isoDay.slice(0, 10)}T00:00:00Z`)),
    shortDay: (isoDay) => shortDay.format(new Date(`${isoDay.slice(0, 10)}T00:00:00Z`)),
  };
  cache.set(language, formatters);
  return formatters;
}
