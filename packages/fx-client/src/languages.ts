/**
 * The languages fx speaks: written once here, in the contract package, so the server's
 * responses and mails and the public page read the one list (the page bundles this file, so it
 * holds no server code). `ku` is Sorani as the fx API spells it (identity says `ckb`).
 */
export const RATE_LANGUAGES = ['ar', 'en', 'de', 'tr', 'ku', 'kmr'] as const;
/** Crypto and gold are only translated into these. */
export const PRICE_LANGUAGES = ['ar', 'en', 'de'] as const;
export type Language = (typeof RATE_LANGUAGES)[number];
export type PriceLanguage = (typeof PRICE_LANGUAGES)[number];

/**
 * Each API language's standard tag. The fx API's `ku` is Sorani, whose standard tag (identity's, the mailer's
 * and Intl's) is `ckb`: the one place the two spellings meet. The server accepts the standard tag as an alias.
 */
export const STANDARD_TAGS: Readonly<Record<Language, string>> = { ar: 'ar', en: 'en', de: 'de', tr: 'tr', ku: 'ckb', kmr: 'kmr' };

/** Arabic and Sorani are written right to left: the server sets `dir` in the HTML, the pages follow it. */
export const RIGHT_TO_LEFT_LANGUAGES: ReadonlySet<Language> = new Set(['ar', 'ku']);

/** Each language's name in itself, for the pages' language menus. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  ar: 'العربية',
  en: 'English',
  de: 'Deutsch',
  tr: 'Türkçe',
  ku: 'کوردی (سۆرانی)',
  kmr: 'Kurdî (Kurmancî)',
};

/**
 * BCP 47 locales for Intl: Syrian Arabic (Arabic-Indic digits), `ckb` for Sorani and ICU's `ku`
 * for Kurmanji; a locale the browser lacks falls back to its default, never to an error.
 */
export const INTL_LOCALE: Readonly<Record<Language, string>> = { ...STANDARD_TAGS, ar: 'ar-SY', kmr: 'ku' };
