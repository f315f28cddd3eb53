/**
 * The answer's fields from the merged MRZ lines, in the shapes identity stores: dates as
 * YYYY-MM-DD, names with spaces for fillers, numbers without fillers.
 */
import { fieldText, type MrzLayout } from './mrz-layout.js';

/** YYMMDD to YYYY-MM-DD, or null for an impossible date. Births are never in the future; expiries are this century. */
export function isoDateFrom(yymmdd: string, kind: 'birth' | 'expiry', today: Date): string | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const yearInCentury = Number(yymmdd.slice(0, 2));
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  let year = 2000 + yearInCentury;
  if (kind === 'birth' && year > today.getUTCFullYear()) year -= 100;
  if (kind === 'expiry' && yearInCentury >= 70) year -= 100;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}

/** SURNAME<<GIVEN<NAMES<<<< to { surname: 'SURNAME', givenNames: 'GIVEN NAMES' }. */
export function namesFrom(text: string): { surname: string; givenNames: string } {
  const [surname = '', ...rest] = text.replace(/<+$/, '').split('<<');
  const spaced = (part: string) => part.replace(/<+/g, ' ').trim();
  return { surname: spaced(surname), givenNames: spaced(rest.join(' ')) };
}

const SEX: Record<string, string> = { M: 'M', F: 'F', '<': 'X' };

export function fieldsFrom(lines: readonly string[], layout: MrzLayout, today: Date): Record<string, string> {
  const fields: Record<string, string> = {};
  const text = (name: string) => fieldText(lines, layout.fields.find((field) => field.name === name)!);
  const put = (name: string, value: string | null | undefined) => {
    if (value) fields[name] = value;
  };
  put('documentNumber', text('documentNumber').replace(/<+/g, ''));
  const { surname, givenNames } = namesFrom(text('names'));
  put('surname', surname);
  put('givenNames', givenNames);
  put('nationality', text('nationality').replace(/<+$/, ''));
  put('issuingState', text('issuingState').replace(/<+$/, ''));
  put('dateOfBirth', isoDateFrom(text('dateOfBirth'), 'birth', today));
  put('sex', SEX[text('sex')]);
  put('expiryDate', isoDateFrom(text('expiryDate'), 'expiry', today));
  put('personalNumber', text('personalNumber').replace(/<+/g, ''));
  if (layout.fields.some((field) => field.name === 'optionalData')) put('optionalData', text('optionalData').replace(/<+/g, ''));
  return fields;
}
