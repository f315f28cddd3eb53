import { ar } from './translations/ar.js';
import { de } from './translations/de.js';
import { en } from './translations/en.js';
import { kmr } from './translations/kmr.js';
import { ku } from './translations/ku.js';
import { tr } from './translations/tr.js';

import type { Language } from '@svc/fx-client/types';

/** The API's languages; Arabic is the default, Arabic and Sorani are written right to left. */
export { RATE_LANGUAGES as LANGUAGES, type Language } from '@svc/fx-client/types';

export const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ar', 'ku']);

/** Each language's name in itself, for the language menu. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  ar: 'العربية',
  en: 'English',
  de: 'Deutsch',
  tr: 'Türkçe',
  ku: 'کوردی (سۆرانی)',
  kmr: 'Kurdî (Kurmancî)',
};

export interface Messages {
  title: string;
  lead: string;
  skipToContent: string;
  language: string;
  latestRates: string;
  currency: string;
  official: string;
  market: string;
  buy: string;
  sell: string;
  mid: string;
  changeAgainstPreviousDay: string;
  up: string;
  down: string;
  unchanged: string;
  effectiveManual: string;
  dataTime: string;
  stale: string;
  demo: string;
  loadFailed: string;
  noData: string;
  crossRates: string;
  oneUsd: string;
  crypto: string;
  price: string;
  change24h: string;
  gold: string;
  karat: string;
  perOunce: string;
  perGram: string;
  gramInSyp: string;
  history: string;
  source: string;
  range: string;
  days: string;
  chartType: string;
  line: string;
  ohlc: string;
  date: string;
  open: string;
  high: string;
  low: string;
  close: string;
  dataTable: string;
  redenominationNote: string;
  converter: string;
  amount: string;
  from: string;
  to: string;
  swap: string;
  result: string;
  atEffectiveRate: string;
  invalidAmount: string;
  api: string;
  apiDocs: string;
  /** The indicator shown while the page receives rates over the live stream. */
  live: string;
  liveTitle: string;
}

export const MESSAGES: Record<Language, Messages> = { ar, en, de, tr, ku, kmr };

/** `{name}` placeholders filled from values; unknown ones are left visible rather than hidden. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
