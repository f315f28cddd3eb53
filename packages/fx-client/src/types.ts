/** The fx API's types, generated from the OpenAPI document the service serves. */
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };
export type { Conversion, CryptoPrices, Currencies, FxHealth, GoldPrices, LatestRates, Pricing, RateAlertWebhook, RateEntry, RateHistory, UsdBasedRates } from './generated/openapi.js';

export type RateSource = components['schemas']['RateHistory']['source'];
export type HistoryPoint = components['schemas']['RateHistory']['points'][number];
export type LatestRatesQuery = NonNullable<operations['getLatestRates']['parameters']['query']>;
export type UsdBasedRatesQuery = NonNullable<operations['getUsdBasedRates']['parameters']['query']>;
export type HistoryQuery = operations['getRateHistory']['parameters']['query'];
export type ConvertQuery = operations['convertAmount']['parameters']['query'];
export type CryptoQuery = NonNullable<operations['getLatestCryptoPrices']['parameters']['query']>;
export type GoldQuery = NonNullable<operations['getLatestGoldPrices']['parameters']['query']>;
export { DEVELOPER_SCREENS, type DeveloperScreen } from './developer-screens.js';
export { INTL_LOCALE, LANGUAGE_NAMES, PRICE_LANGUAGES, RATE_LANGUAGES, RIGHT_TO_LEFT_LANGUAGES, STANDARD_TAGS, type Language, type PriceLanguage } from './languages.js';
