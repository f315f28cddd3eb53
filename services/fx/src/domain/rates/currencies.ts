import { ValidationError } from '@svc/problem-json';

/**
 * Supported ISO 4217 codes and the decimals served for a rate of SYP per one unit:
 * weak currencies (LBP, IQD) need more decimals to stay meaningful.
 */
export const SUPPORTED_CURRENCIES: Readonly<Record<string, number>> = {
  USD: 2, EUR: 2, GBP: 2, CHF: 2, SEK: 2, CAD: 2, AUD: 2, CNY: 2, RUB: 2,
  TRY: 2, SAR: 2, AED: 2, JOD: 2, EGP: 2, KWD: 2, QAR: 2, LBP: 4, IQD: 4,
};

export function isSupportedCurrency(code: string): boolean {
  return Object.hasOwn(SUPPORTED_CURRENCIES, code);
}

/** Parses a comma-separated `currencies` filter; unknown codes → 400 naming them. */
export function parseCurrencyList(value: string, field: string): string[] {
  const codes = value.split(',').map((code) => code.trim().toUpperCase()).filter((code) => code.length > 0);
  const unknown = codes.filter((code) => !isSupportedCurrency(code));
  if (unknown.length > 0) {
    throw new ValidationError(`Unsupported currency code(s): ${unknown.join(', ')}.`, [{ path: field, message: `unsupported: ${unknown.join(', ')}` }]);
  }
  return [...new Set(codes)];
}

/** Rounds a stored numeric string for output; the stored value itself is never float-converted back. */
export function roundRate(value: string, currency: string): number {
  const decimals = SUPPORTED_CURRENCIES[currency] ?? 4;
  return Number(Number(value).toFixed(decimals));
}
