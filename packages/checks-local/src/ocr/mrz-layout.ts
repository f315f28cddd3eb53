/**
 * The two MRZ layouts the Syrian documents use (ICAO 9303 part 4 and 5), as data: where each
 * field sits, what characters it may hold, and which check digit guards it. The merge and the
 * field extraction both walk this table instead of hard-coding positions twice.
 */
import { checkDigit, passesCheckDigit } from './icao.js';

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
const FIRST_CHARACTER: Record<MrzFormat, RegExp> = { TD3: /^P[A-Z<]/, TD1: /^[IAC][A-Z<]/ };

function digitCount(text: string): number {
  return (text.match(/\d/g) ?? []).length;
}

/**
 * Which line of the layout one lone MRZ-like line is, when an engine found fewer lines than the
 * layout has: the first starts with its document code, the data line is mostly digits, the
 * TD1 name line has none. Null when it fits none.
 */
function lineIndexOf(line: string, layout: MrzLayout): number | null {
  if (FIRST_CHARACTER[layout.format].test(line) && (layout.format === 'TD1' || digitCount(line) < 5)) return 0;
  if (digitCount(line.slice(0, 30)) >= 10) return 1;
  if (layout.format === 'TD1' && digitCount(line) <= 1) return 2;
  return null;
}

/**
 * The MRZ lines in one engine's text, by position in the layout, with null for a line it did not
 * find; null when it found none. MRZ lines are the last lines of the band that are long enough and
 * made of MRZ characters (spaces dropped: tesseract splits `<<` runs). A line a character or two
 * too long or short is kept: the check digits decide later.
 */
export function mrzLinesIn(text: string, layout: MrzLayout): Array<string | null> | null {
  const candidates = text
    .split('\n')
    .map((line) => withoutStrayEnds(line.toUpperCase().trim(), layout.lineLength).replace(/\s+/g, ''))
    .filter((line) => line.length >= layout.lineLength - 4 && /^[A-Z0-9<]+$/.test(line));
  // The band may hold a line of printed text read as MRZ characters above the real MRZ: the MRZ
  // block starts at its document code.
  const start = candidates.findIndex((line, index) => FIRST_CHARACTER[layout.format].test(line) && index + layout.lineCount <= candidates.length);
  if (start >= 0) return candidates.slice(start, start + layout.lineCount).map((line, index) => alignToLayout(line, index, layout));
  // No whole block: place the lines found one by one, and give up on any doubt.
  const found: Array<string | null> = Array.from({ length: layout.lineCount }, () => null);
  for (const line of candidates.slice(-layout.lineCount)) {
    const index = lineIndexOf(line, layout);
    if (index === null || found[index] !== null) return null;
    found[index] = alignToLayout(line, index, layout);
  }
  return found.some((line) => line !== null) ? found : null;
}

/**
 * Drops a one- or two-character word tesseract put before or after a line that is too long
 * with it (a speck read as `1`), never one the line needs to reach its width.
 */
function withoutStrayEnds(line: string, length: number): string {
  let words = line.split(/\s+/);
  const width = (parts: string[]) => parts.join('').length;
  if (words.length > 1 && words[0]!.length <= 2 && width(words) > length && width(words.slice(1)) >= length - 2) words = words.slice(1);
  if (words.length > 1 && words.at(-1)!.length <= 2 && width(words) > length && width(words.slice(0, -1)) >= length - 2) words = words.slice(0, -1);
  return words.join(' ');
}

/** How many of the check digits that lie wholly on line `index` pass, for one way of placing its characters. */
function passingDigitsOnLine(line: string, index: number, layout: MrzLayout): number {
  let passing = 0;
  for (const field of layout.fields) {
    if (field.line === index && field.checkDigitAt !== undefined && passesCheckDigit(line.slice(field.start, field.end), line[field.checkDigitAt]!)) passing += 1;
  }
  const composite = layout.composite;
  if (composite.line === index && composite.spans.every((span) => span.line === index)) {
    if (checkDigit(composite.spans.map((span) => line.slice(span.start, span.end)).join('')) === line[composite.at]) passing += 1;
  }
  return passing;
}

/** Every way to remove `count` characters from `line` (count 1 or 2). */
function* deletions(line: string, count: number): Generator<string> {
  for (let first = 0; first < line.length; first++) {
    const shorter = line.slice(0, first) + line.slice(first + 1);
    if (count === 1) yield shorter;
    else for (let second = first; second < shorter.length; second++) yield shorter.slice(0, second) + shorter.slice(second + 1);
  }
}

/** Every way to add `count` fillers to `line` (count 1 or 2). */
function* insertions(line: string, count: number): Generator<string> {
  for (let first = 0; first <= line.length; first++) {
    const longer = `${line.slice(0, first)}<${line.slice(first)}`;
    if (count === 1) yield longer;
    else for (let second = first; second <= longer.length; second++) yield `${longer.slice(0, second)}<${longer.slice(second)}`;
  }
}

/**
 * Fits a line read one or two characters too long or short to the layout's width. A line with
 * check digits is fitted the way that makes most of them pass (an inserted speck shifts every
 * field after it, so cutting the end would fail them all); a name line loses or gains fillers at
 * its end. Every field must still pass its own digit afterwards: this only undoes a shift, and
 * when two fits tie, the line is left as read for the other engine to settle.
 */
export function alignToLayout(line: string, index: number, layout: MrzLayout): string {
  const length = layout.lineLength;
  const plain = line.length >= length ? line.slice(0, length) : line.padEnd(length, '<');
  const difference = line.length - length;
  const hasDigits = layout.fields.some((field) => field.line === index && field.checkDigitAt !== undefined);
  if (difference === 0 || !hasDigits || Math.abs(difference) > 2) return plain;
  let best = new Set([plain]);
  let bestScore = passingDigitsOnLine(plain, index, layout);
  for (const candidate of difference > 0 ? deletions(line, difference) : insertions(line, -difference)) {
    const score = passingDigitsOnLine(candidate, index, layout);
    if (score > bestScore) best = new Set([candidate]);
    else if (score === bestScore && score > 0) best.add(candidate);
    bestScore = Math.max(score, bestScore);
  }
  // Two different fits that pass as many digits (N and D weigh the same mod 10): no guessing.
  return best.size === 1 ? [...best][0]! : plain;
}

export function fieldText(lines: readonly string[], field: { line: number; start: number; end: number }): string {
  return lines[field.line]!.slice(field.start, field.end);
}
