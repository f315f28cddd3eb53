import { max, min } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { rateObservations } from '../../db/schema.js';
import type { Language } from '../../i18n/languages.js';
import { SUPPORTED_CURRENCIES } from './currencies.js';
import { RATE_SOURCES, type RateSource } from './rate-types.js';

/**
 * Names come from the runtime's ICU data (CLDR), not a table of our own. ICU has no currency
 * names for Sorani (ckb), so Sorani reads them in Arabic, as the page does for prices; its
 * Kurdish (ku) is Kurmanji.
 */
const NAME_LOCALES: Record<Language, string> = { ar: 'ar', en: 'en', de: 'de', tr: 'tr', ku: 'ar', kmr: 'ku' };

export interface ServedCurrency {
  code: string;
  name: string;
  sources: RateSource[];
  firstDate: string | null;
  lastDate: string | null;
}

/** Every served code with its name in `language`, the sources that quote it and its span of history (null without any). */
export async function listServedCurrencies(db: FxExecutor, language: Language): Promise<ServedCurrency[]> {
  const rows = await db
    .select({ currency: rateObservations.currency, source: rateObservations.source, first: min(rateObservations.observedAt), last: max(rateObservations.observedAt) })
    .from(rateObservations)
    .groupBy(rateObservations.currency, rateObservations.source);
  const names = new Intl.DisplayNames([NAME_LOCALES[language]], { type: 'currency', fallback: 'code' });
  const day = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString().slice(0, 10));
  return Object.keys(SUPPORTED_CURRENCIES)
    .sort()
    .map((code) => {
      const quoted = rows.filter((row) => row.currency === code);
      const firsts = quoted.map((row) => day(row.first)).filter((value): value is string => value !== null).sort();
      const lasts = quoted.map((row) => day(row.last)).filter((value): value is string => value !== null).sort();
      return {
        code,
        name: names.of(code) ?? code,
        sources: RATE_SOURCES.filter((source) => quoted.some((row) => row.source === source)),
        firstDate: firsts[0] ?? null,
        lastDate: lasts[lasts.length - 1] ?? null,
      };
    });
}
