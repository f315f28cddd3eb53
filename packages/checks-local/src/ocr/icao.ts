/**
 * ICAO 9303 rules the MRZ reader needs beside the `mrz` parser: the check digit (7-3-1 weights)
 * and the country codes. Fields without a check digit (issuing state, nationality) can only be
 * trusted when they are a real code, so an OCR slip such as `8YR` is caught here.
 */
import { states } from 'mrz';

const WEIGHTS = [7, 3, 1] as const;

/** The value of one MRZ character in the check-digit sum: digits as is, A=10 … Z=35, filler 0. */
function characterValue(character: string): number {
  if (character >= '0' && character <= '9') return character.charCodeAt(0) - 48;
  if (character >= 'A' && character <= 'Z') return character.charCodeAt(0) - 55;
  if (character === '<') return 0;
  return Number.NaN;
}

/** The ICAO 9303 check digit of `value` ("0"-"9"), or null when it holds a character an MRZ cannot. */
export function checkDigit(value: string): string | null {
  let sum = 0;
  for (let index = 0; index < value.length; index++) {
    const characterScore = characterValue(value[index]!);
    if (Number.isNaN(characterScore)) return null;
    sum += characterScore * WEIGHTS[index % 3]!;
  }
  return String(sum % 10);
}

/** Whether `digit` is the check digit of `value`. A filler `<` counts as 0, as ICAO allows for empty optional fields. */
export function passesCheckDigit(value: string, digit: string): boolean {
  const expected = checkDigit(value);
  if (expected === null) return false;
  return digit === expected || (digit === '<' && expected === '0' && /^<*$/.test(value));
}

/** A three-letter MRZ code (fillers included, e.g. `D<<`) that names a state or organisation ICAO lists. */
export function isIcaoCountryCode(code: string): boolean {
  const trimmed = code.replace(/<+$/, '');
  return /^[A-Z]{1,3}$/.test(trimmed) && Object.hasOwn(states, trimmed);
}
