/**
 * The two MRZ layouts the Syrian documents use (ICAO 9303 part 4 and 5), as data: where each
 * field sits, what characters it may hold, and which check digit guards it. The merge and the
 * field extraction both walk this table instead of hard-coding positions twice.
 */
export type MrzFormat = 'TD1' | 'TD3';

/**
 * numeric: digits (dates); alphanumeric: document and personal numbers; country: an ICAO code,
 * no check digit; sex: M, F or <; name: letters and fillers, no check digit; code: the document
 * code (P…, I…).
 */
export type FieldKind = 'numeric' | 'alphanumeric' | 'country' | 'sex' | 'name' | 'code';

export interface MrzField {
  name: string;
  line: number;
  start: number;
  end: number;
  kind: FieldKind;
  /** Column of this field's own check digit on the same line. */
  checkDigitAt?: number;
}

export interface MrzLayout {
  format: MrzFormat;
  lineCount: number;
  lineLength: number;
  fields: MrzField[];
  /** The spans the composite check digit covers, and where it is. */
  composite: { line: number; at: number; spans: Array<{ line: number; start: number; end: number }> };
}

export const TD3: MrzLayout = {
  format: 'TD3',
  lineCount: 2,
  lineLength: 44,
  fields: [
    { name: 'documentCode', line: 0, start: 0, end: 2, kind: 'code' },
    { name: 'issuingState', line: 0, start: 2, end: 5, kind: 'country' },
    { name: 'names', line: 0, start: 5, end: 44, kind: 'name' },
    { name: 'documentNumber', line: 1, start: 0, end: 9, kind: 'alphanumeric', checkDigitAt: 9 },
    { name: 'nationality', line: 1, start: 10, end: 13, kind: 'country' },
    { name: 'dateOfBirth', line: 1, start: 13, end: 19, kind: 'numeric', checkDigitAt: 19 },
    { name: 'sex', line: 1, start: 20, end: 21, kind: 'sex' },
    { name: 'expiryDate', line: 1, start: 21, end: 27, kind: 'numeric', checkDigitAt: 27 },
    { name: 'personalNumber', line: 1, start: 28, end: 42, kind: 'alphanumeric', checkDigitAt: 42 },
  ],
  composite: { line: 1, at: 43, spans: [{ line: 1, start: 0, end: 10 }, { line: 1, start: 13, end: 20 }, { line: 1, start: 21, end: 43 }] },
};

export const TD1: MrzLayout = {
  format: 'TD1',
  lineCount: 3,
  lineLength: 30,
  fields: [
    { name: 'documentCode', line: 0, start: 0, end: 2, kind: 'code' },
    { name: 'issuingState', line: 0, start: 2, end: 5, kind: 'country' },
    { name: 'documentNumber', line: 0, start: 5, end: 14, kind: 'alphanumeric', checkDigitAt: 14 },
    // Syrian cards carry the national number here; only the composite digit guards it.
    { name: 'personalNumber', line: 0, start: 15, end: 30, kind: 'alphanumeric' },
    { name: 'dateOfBirth', line: 1, start: 0, end: 6, kind: 'numeric', checkDigitAt: 6 },
    { name: 'sex', line: 1, start: 7, end: 8, kind: 'sex' },
    { name: 'expiryDate', line: 1, start: 8, end: 14, kind: 'numeric', checkDigitAt: 14 },
    { name: 'nationality', line: 1, start: 15, end: 18, kind: 'country' },
    { name: 'optionalData', line: 1, start: 18, end: 29, kind: 'alphanumeric' },
    { name: 'names', line: 2, start: 0, end: 30, kind: 'name' },
  ],
  composite: { line: 1, at: 29, spans: [{ line: 0, start: 5, end: 30 }, { line: 1, start: 0, end: 7 }, { line: 1, start: 8, end: 15 }, { line: 1, start: 18, end: 29 }] },
};

export const LAYOUTS: Record<MrzFormat, MrzLayout> = { TD1, TD3 };

/** The characters an MRZ may hold: what tesseract is told to look for in the band. */
export const MRZ_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

/** How the first line of each layout starts: P for passports, I/A/C for ID cards. */
const FIRST_CHARACTER: Record<MrzFormat, RegExp> = { TD3: /^P/, TD1: /^[IAC]/ };

/**
 * The MRZ lines in one engine's text, or null. MRZ lines are the last lines of the band that
 * are long enough and made of MRZ characters (spaces dropped: tesseract splits `<<` runs).
 * A line a character or two too long or short is kept: the check digits decide later.
 */
export function mrzLinesIn(text: string, layout: MrzLayout): string[] | null {
  const candidates = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, '').toUpperCase())
    .filter((line) => line.length >= layout.lineLength - 4 && /^[A-Z0-9<]+$/.test(line));
  if (candidates.length < layout.lineCount) return null;
  let lines = candidates.slice(-layout.lineCount);
  if (!FIRST_CHARACTER[layout.format].test(lines[0]!)) {
    // The band may hold a line of printed text read as MRZ characters above the real MRZ.
    const start = candidates.findIndex((line) => FIRST_CHARACTER[layout.format].test(line));
    if (start < 0 || start + layout.lineCount > candidates.length) return null;
    lines = candidates.slice(start, start + layout.lineCount);
  }
  return lines.map((line) => normaliseLength(line, layout.lineLength));
}

/** Pads with fillers or cuts trailing characters (usually misread fillers) to the layout's width. */
function normaliseLength(line: string, length: number): string {
  return line.length >= length ? line.slice(0, length) : line.padEnd(length, '<');
}

export function fieldText(lines: readonly string[], field: { line: number; start: number; end: number }): string {
  return lines[field.line]!.slice(field.start, field.end);
}
