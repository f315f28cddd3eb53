/**
 * MRZ lines for synthetic documents, written from the ICAO 9303 layouts (TD3 passport: 2 × 44,
 * TD1 card: 3 × 30) with real check digits, or a deliberately wrong one for tamper tests.
 */
import { checkDigit } from '../ocr/icao.js';

export interface MrzHolder {
  surname: string;
  givenNames: string;
  documentNumber: string;
  nationality: string;
  issuingState: string;
  /** YYYY-MM-DD */
  dateOfBirth: string;
  sex: 'M' | 'F';
  /** YYYY-MM-DD */
  expiryDate: string;
  /** The Syrian national number (11 digits), in the personal-number / optional field. */
  personalNumber: string;
}

/** Which printed check digit to get wrong (tamper tests): the MRZ then must not read valid. */
export type MrzTamper = 'documentNumberCheckDigit' | 'dateOfBirthCheckDigit' | null;

function mrzText(text: string): string {
  return text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '<')
    .replace(/^<+|<+$/g, '');
}

function fit(value: string, length: number): string {
  if (value.length > length) throw new RangeError(`MRZ field "${value}" is longer than ${length} characters`);
  return value.padEnd(length, '<');
}

function yymmdd(isoDate: string): string {
  return isoDate.slice(2, 4) + isoDate.slice(5, 7) + isoDate.slice(8, 10);
}

function nameField(holder: MrzHolder, length: number): string {
  const name = `${mrzText(holder.surname)}<<${mrzText(holder.givenNames)}`;
  return name.length > length ? name.slice(0, length) : fit(name, length);
}

/** A check digit, or a different digit when this one is the tampered one. */
function digitFor(value: string, field: MrzTamper, tamper: MrzTamper): string {
  const digit = checkDigit(value)!;
  return field !== null && field === tamper ? String((Number(digit) + 5) % 10) : digit;
}

export function td3Lines(holder: MrzHolder, tamper: MrzTamper = null): [string, string] {
  const line1 = `P<${fit(holder.issuingState, 3)}${nameField(holder, 39)}`;
  const documentNumber = fit(holder.documentNumber, 9);
  const birth = yymmdd(holder.dateOfBirth);
  const expiry = yymmdd(holder.expiryDate);
  const personal = fit(holder.personalNumber, 14);
  const documentPart = documentNumber + digitFor(documentNumber, 'documentNumberCheckDigit', tamper);
  const birthPart = birth + digitFor(birth, 'dateOfBirthCheckDigit', tamper);
  const expiryPart = expiry + checkDigit(expiry)!;
  const personalPart = personal + checkDigit(personal)!;
  const composite = checkDigit(documentPart + birthPart + expiryPart + personalPart)!;
  const line2 = `${documentPart}${fit(holder.nationality, 3)}${birthPart}${holder.sex}${expiryPart}${personalPart}${composite}`;
  return [line1, line2];
}

export function td1Lines(holder: MrzHolder, tamper: MrzTamper = null): [string, string, string] {
  const documentNumber = fit(holder.documentNumber, 9);
  const optional1 = fit(holder.personalNumber, 15);
  const documentPart = documentNumber + digitFor(documentNumber, 'documentNumberCheckDigit', tamper) + optional1;
  const line1 = `ID${fit(holder.issuingState, 3)}${documentPart}`;
  const birth = yymmdd(holder.dateOfBirth);
  const expiry = yymmdd(holder.expiryDate);
  const birthPart = birth + digitFor(birth, 'dateOfBirthCheckDigit', tamper);
  const expiryPart = expiry + checkDigit(expiry)!;
  const optional2 = fit('', 11);
  const composite = checkDigit(documentPart + birthPart + expiryPart + optional2)!;
  const line2 = `${birthPart}${holder.sex}${expiryPart}${fit(holder.nationality, 3)}${optional2}${composite}`;
  const line3 = nameField(holder, 30);
  return [line1, line2, line3];
}
