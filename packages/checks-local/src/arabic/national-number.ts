/**
 * The Syrian national number: 11 digits whose first two name the governorate of the civil
 * registry (01–14, one per governorate). A reading is accepted only in that shape; anything else
 * is left for the reviewer.
 */
import { westernDigits } from './text.js';

export const NATIONAL_NUMBER_LENGTH = 11;
/** The 14 governorates' registry codes, 01 (Damascus) to 14 (Quneitra). */
export const GOVERNORATE_PREFIXES: readonly string[] = Array.from({ length: 14 }, (_, index) => String(index + 1).padStart(2, '0'));

/** The 11 Western digits of a reading (Arabic-Indic and Persian digits accepted, spaces ignored), or null when it is not a valid national number. */
export function parseNationalNumber(reading: string): string | null {
  const digits = westernDigits(reading).replace(/\s+/g, '');
  if (!/^\d+$/.test(digits) || digits.length !== NATIONAL_NUMBER_LENGTH) return null;
  return GOVERNORATE_PREFIXES.includes(digits.slice(0, 2)) ? digits : null;
}
