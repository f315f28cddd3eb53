// The list lives in the contract package, which the public page imports too.
export { PRICE_LANGUAGES, RATE_LANGUAGES, type Language, type PriceLanguage } from '@svc/fx-client/types';
