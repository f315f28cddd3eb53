// The list lives in the contract package, which the public page imports too.
export { PRICE_LANGUAGES, RATE_LANGUAGES, RIGHT_TO_LEFT_LANGUAGES, STANDARD_TAGS, type Language, type PriceLanguage } from '@svc/fx-client/types';
