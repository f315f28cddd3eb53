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
