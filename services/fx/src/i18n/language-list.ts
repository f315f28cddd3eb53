/**
 * The languages fx speaks, with no dependencies so that the server and the public page read the
 * one list (the page bundles this file; it must stay free of server code).
 */
export const RATE_LANGUAGES = ['ar', 'en', 'de', 'tr', 'ku', 'kmr'] as const;
/** Crypto and gold are only translated into these. */
export const PRICE_LANGUAGES = ['ar', 'en', 'de'] as const;
export type Language = (typeof RATE_LANGUAGES)[number];
export type PriceLanguage = (typeof PRICE_LANGUAGES)[number];
