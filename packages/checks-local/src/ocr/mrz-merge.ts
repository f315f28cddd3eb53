/**
 * Merging what the two tesseract engines read, field by field, trusting check digits over
 * either engine. The legacy engine reads fillers and names well but confuses look-alike
 * characters; the LSTM engine reads digits well but turns `<` into K, L or C. A field with a
 * check digit is taken from whichever reading passes it; a country code (no check digit) only
 * from a reading that is a real ICAO code; anything two readings disagree on, with no digit to
 * settle it, stays unresolved and keeps the read from passing.
 */
import { checkDigit, isIcaoCountryCode, passesCheckDigit } from './icao.js';
import { fieldText, type MrzField, type MrzLayout } from './mrz-layout.js';

export interface EngineReading {
  engine: 'legacy' | 'lstm';
  /** The MRZ lines this engine read (normalised to the layout's width; null for a line it missed), or null for none. */
  lines: Array<string | null> | null;
}

type Reading = Array<string | null>;

/** The readings that have all of these lines (the others cannot say anything about a field on them). */
function withLines(readings: Reading[], lines: number[]): string[][] {
  return readings.filter((reading) => lines.every((line) => typeof reading[line] === 'string')) as string[][];
}

/**
 * agreed: every engine that read it says the same valid thing; resolved: engines differ and one
 * valid reading settles it (a check digit, an ICAO code); unresolved: no valid reading;
 * conflict: two different valid readings.
 */
export type FieldStatus = 'agreed' | 'resolved' | 'unresolved' | 'conflict';

export interface MergedMrz {
  lines: string[];
  /** Per field with a check digit, plus `composite`: does the merged text pass it. */
  checkDigits: Record<string, boolean>;
  status: Record<string, FieldStatus>;
  /** Both engines read the names identically (a second opinion, since names have no check digit). */
  namesAgree: boolean;
  /** Readings of the name field that are letters and fillers only, legacy first: the printed page picks among them. */
  nameCandidates: string[];
  /** Every engine's raw reading of the name field (digits read as letters), for word-by-word confirmation. */
  nameReadings: string[];
  /** Share of the check-digit-guarded characters both engines read identically (0 with one engine). */
  engineAgreement: number;
}

/** Letters an OCR engine gives for digits; only applied where a digit is the only valid character. */
const DIGIT_FOR_LETTER: Record<string, string> = { O: '0', Q: '0', D: '0', U: '0', I: '1', L: '1', Z: '2', S: '5', B: '8', G: '6', T: '7' };

/** Digits an OCR engine gives for letters; names hold no digits, so there a digit is a misreading. */
const LETTER_FOR_DIGIT: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B' };

export function lettersOnly(text: string): string {
  return text.replace(/\d/g, (digit) => LETTER_FOR_DIGIT[digit] ?? digit);
}

export function digitsOnly(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => DIGIT_FOR_LETTER[letter] ?? letter);
}

function distinct(values: string[]): string[] {
  return [...new Set(values)];
}

function statusOf(valid: string[], all: string[]): FieldStatus {
  if (valid.length === 0) return 'unresolved';
  if (valid.length > 1) return 'conflict';
  return all.every((value) => value === valid[0]) ? 'agreed' : 'resolved';
}

/**
 * The country code from each engine's reading of one field: only a reading that is an ICAO code
 * counts. `8YR` from the legacy engine (its misreading of `S` after a digit) is resolved by the
 * other engine's `SYR`; when no engine read a real code, nothing is guessed.
 */
export function resolveCountry(readings: string[]): { value: string | null; status: FieldStatus } {
  const valid = distinct(readings.filter(isIcaoCountryCode));
  const status = statusOf(valid, readings);
  return { value: status === 'agreed' || status === 'resolved' ? valid[0]! : null, status };
}

/** One field with its own check digit: value + digit, as each engine read it. */
function resolveCheckedField(readings: string[][], field: MrzField): { text: string | null; status: FieldStatus } {
  const length = field.end - field.start;
  const raw = readings.map((lines) => fieldText(lines, field) + lines[field.line]![field.checkDigitAt!]!);
  // The check digit is always a digit; a date is always digits: a letter there is a misreading.
  const corrected = raw.map((text) => {
    const value = field.kind === 'numeric' ? digitsOnly(text.slice(0, length)) : text.slice(0, length);
    return value + digitsOnly(text.slice(length));
  });
  const passing = distinct([...raw, ...corrected].filter((text) => passesCheckDigit(text.slice(0, length), text.slice(length))));
  const status = statusOf(passing, raw);
  return { text: status === 'agreed' || status === 'resolved' ? passing[0]! : null, status };
}

function replaceAt(lines: string[], line: number, start: number, text: string): void {
  const current = lines[line]!;
  lines[line] = current.slice(0, start) + text + current.slice(start + text.length);
}

function compositeText(lines: readonly string[], layout: MrzLayout): string {
  return layout.composite.spans.map((span) => fieldText(lines, span)).join('');
}

function passesComposite(lines: readonly string[], layout: MrzLayout): boolean {
  return checkDigit(compositeText(lines, layout)) === lines[layout.composite.line]![layout.composite.at];
}

/**
 * One reading from two: where the engines differ, a filler wins over a letter (the LSTM engine
 * turns `<` into K, L or C) and a digit over a letter (the legacy engine turns 8 into B, 2 into
 * Z). A fixed rule, not a search: trying many combinations against one composite digit would
 * let a wrong one pass one time in ten.
 */
export function fuseReadings(legacy: string, lstm: string): string {
  let fused = '';
  for (let index = 0; index < legacy.length; index++) {
    const first = legacy[index]!;
    const second = lstm[index] ?? first;
    if (first === second || first === '<') fused += first;
    else if (second === '<') fused += second;
    else if (/\d/.test(second) && !/\d/.test(first)) fused += second;
    else fused += first;
  }
  return fused;
}

/**
 * Fields only the composite digit guards (TD1's optional fields, where the Syrian national number
 * sits): the engines' fused reading of them is kept only if the composite digit then passes.
 */
function resolveByComposite(merged: string[], allReadings: Reading[], layout: MrzLayout, fields: MrzField[]): FieldStatus {
  const compositeAt = { line: layout.composite.line, start: layout.composite.at, end: layout.composite.at + 1 };
  const spans = [...fields, compositeAt];
  const readings = withLines(allReadings, [...new Set(spans.map((span) => span.line))]);
  if (readings.length === 0) return 'unresolved';
  const texts = readings.map((lines) => spans.map((span) => fieldText(lines, span)));
  const agreed = texts.every((text) => text.join('|') === texts[0]!.join('|'));
  const fused = texts[0]!.map((text, index) => {
    const value = texts.length > 1 ? fuseReadings(text, texts[1]![index]!) : text;
    return index === fields.length ? digitsOnly(value) : value;
  });
  const trial = [...merged];
  spans.forEach((span, index) => replaceAt(trial, span.line, span.start, fused[index]!));
  if (!passesComposite(trial, layout)) return 'unresolved';
  merged.splice(0, merged.length, ...trial);
  return agreed ? 'agreed' : 'resolved';
}

/** Share of the guarded characters (values and digits) that the first two readings both read, and read alike. */
function agreementOf(allReadings: Reading[], layout: MrzLayout): number {
  let same = 0;
  let total = 0;
  for (const field of layout.fields.filter((candidate) => candidate.checkDigitAt !== undefined)) {
    const span = { ...field, end: field.checkDigitAt! + 1 };
    const texts = withLines(allReadings, [field.line]).map((lines) => fieldText(lines, span));
    total += span.end - span.start;
    if (texts.length < 2) continue;
    for (let index = 0; index < texts[0]!.length; index++) if (texts[0]![index] === texts[1]![index]) same += 1;
  }
  return total === 0 ? 0 : same / total;
}

/**
 * Puts another reading of the names into the merged lines (the one the printed page confirms).
 * Only the name field changes, and no check digit covers it.
 */
export function withNames(merged: MergedMrz, layout: MrzLayout, names: string): MergedMrz {
  const namesField = layout.fields.find((field) => field.kind === 'name')!;
  const lines = [...merged.lines];
  replaceAt(lines, namesField.line, namesField.start, names);
  return { ...merged, lines };
}

/** The merged MRZ, or null when no engine found MRZ lines. The legacy reading is the base. */
export function mergeReadings(engineReadings: EngineReading[], layout: MrzLayout): MergedMrz | null {
  const ordered = [...engineReadings].sort((first, second) => (first.engine === 'legacy' ? -1 : second.engine === 'legacy' ? 1 : 0));
  const readings = ordered.map((reading) => reading.lines).filter((lines): lines is Reading => lines !== null);
  const base = Array.from({ length: layout.lineCount }, (_unused, line) => readings.find((reading) => typeof reading[line] === 'string')?.[line] ?? null);
  if (base.some((line) => line === null)) return null;
  const merged = base as string[];
  const status: Record<string, FieldStatus> = {};
  const checkDigits: Record<string, boolean> = {};

  for (const field of layout.fields) {
    const available = withLines(readings, [field.line]);
    if (field.checkDigitAt !== undefined) {
      const resolved = resolveCheckedField(available, field);
      status[field.name] = resolved.status;
      if (resolved.text !== null) replaceAt(merged, field.line, field.start, resolved.text);
    } else if (field.kind === 'country') {
      const resolved = resolveCountry(available.map((lines) => fieldText(lines, field)));
      status[field.name] = resolved.status;
      if (resolved.value !== null) replaceAt(merged, field.line, field.start, resolved.value.padEnd(3, '<'));
    } else if (field.kind === 'sex') {
      const values = available.map((lines) => fieldText(lines, field));
      const valid = distinct(values.filter((value) => /^[MF<]$/.test(value)));
      status[field.name] = statusOf(valid, values);
      if (valid.length === 1) replaceAt(merged, field.line, field.start, valid[0]!);
    } else if (field.kind === 'code') {
      const values = available.map((lines) => fieldText(lines, field));
      const valid = distinct(values.filter((value) => (layout.format === 'TD3' ? /^P[A-Z<]$/ : /^[IAC][A-Z<]$/).test(value)));
      status[field.name] = statusOf(valid, values);
      if (valid.length === 1) replaceAt(merged, field.line, field.start, valid[0]!);
    }
  }
  const compositeOnly = layout.fields.filter((field) => field.kind === 'alphanumeric' && field.checkDigitAt === undefined);
  if (compositeOnly.length > 0) {
    const compositeStatus = resolveByComposite(merged, readings, layout, compositeOnly);
    for (const field of compositeOnly) status[field.name] = compositeStatus;
  }
  for (const field of layout.fields) {
    if (field.checkDigitAt !== undefined) checkDigits[field.name] = passesCheckDigit(fieldText(merged, field), merged[field.line]![field.checkDigitAt]!);
  }
  checkDigits.composite = passesComposite(merged, layout);

  const namesField = layout.fields.find((field) => field.kind === 'name')!;
  const names = withLines(readings, [namesField.line]).map((lines) => lettersOnly(fieldText(lines, namesField)));
  const nameCandidates = distinct(names.filter((name) => /^[A-Z<]+$/.test(name)));
  if (nameCandidates.length > 0) replaceAt(merged, namesField.line, namesField.start, nameCandidates[0]!);
  return {
    lines: merged,
    checkDigits,
    status,
    namesAgree: names.length > 1 && names.every((name) => name === names[0]),
    nameCandidates,
    nameReadings: names,
    engineAgreement: agreementOf(readings, layout),
  };
}
