import { ar } from './translations/ar.js';
import { de } from './translations/de.js';
import { en } from './translations/en.js';
import { kmr } from './translations/kmr.js';
import { ku } from './translations/ku.js';
import { tr } from './translations/tr.js';

import type { Language } from '@svc/fx-client/types';

export { fill } from '@svc/web-ui';

/** The API's languages; Arabic is the default, Arabic and Sorani are written right to left. */
export { LANGUAGE_NAMES, RATE_LANGUAGES as LANGUAGES, RIGHT_TO_LEFT_LANGUAGES as RIGHT_TO_LEFT, type Language } from '@svc/fx-client/types';

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
