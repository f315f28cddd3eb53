/**
 * Cross-checking the MRZ against the printed (visual) zone of the same page. Names have no check
 * digit, so a valid MRZ proves its numbers, not its names: a name counts as confirmed only when
 * every word of it is printed on the page too, exactly (a fuzzy match would confirm a misread).
 *
 * The visual zone also gives the one manipulation indicator we can defend: a printed document
 * number or date of birth, under its label, that differs from the MRZ's by more than OCR noise
 * (two characters or more). This compares the page with itself; it is not document-authenticity
 * detection and says nothing about a consistent forgery.
 */
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

export interface VisualZoneCheck {
  namesConfirmed: boolean;
  documentNumberConfirmed: boolean;
  /** Plain-words reasons the printed page contradicts the MRZ; empty when it does not. */
  contradictions: string[];
}

/** Printed lines, without anything that looks like an MRZ line (which would confirm the MRZ by itself). */
function printedLines(text: string): string[] {
  return text
    .toUpperCase()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.includes('<') && !/[A-Z0-9]{25,}/.test(line));
}

function words(lines: string[]): Set<string> {
  return new Set(lines.flatMap((line) => line.split(/[^A-Z0-9]+/)).filter((word) => word.length > 0));
}

function differingCharacters(first: string, second: string): number {
  if (first.length !== second.length) return Math.max(first.length, second.length);
  let count = 0;
  for (let index = 0; index < first.length; index++) if (first[index] !== second[index]) count += 1;
  return count;
}

/** Dates printed on one line, in order, as YYYY-MM-DD: "09 OCT 1968", "09/10/1968", "09.10.1968". */
export function printedDates(line: string): string[] {
  const dates: string[] = [];
  const pattern = /\b(\d{2})\s?(?:([A-Z]{3})|[./-](\d{2})[./-]?)\s?(\d{4})\b/g;
  for (const match of line.matchAll(pattern)) {
    const [, day, monthName, monthNumber, year] = match;
    const month = monthName ? MONTHS.indexOf(monthName) + 1 : Number(monthNumber);
    if (month >= 1 && month <= 12) dates.push(`${year}-${String(month).padStart(2, '0')}-${day}`);
  }
  return dates;
}

/** The date printed under a "date of birth" label: label and values are matched by their order on the line. */
function printedBirthDate(lines: string[]): string | null {
  for (let index = 0; index + 1 < lines.length; index++) {
    const labels = [...lines[index]!.matchAll(/BIRTH|EXPIRY|ISSUE/g)].map((match) => match[0]);
    const birth = labels.indexOf('BIRTH');
    if (birth < 0 || (/PLACE OF BIRTH/.test(lines[index]!) && labels.length === 1)) continue;
    const dates = printedDates(lines[index + 1]!);
    if (dates.length === labels.length) return dates[birth]!;
  }
  return null;
}

/** The number printed under a "passport/card/document No." label, when exactly one number-like word is there. */
function printedDocumentNumber(lines: string[]): string | null {
  for (let index = 0; index + 1 < lines.length; index++) {
    if (!/(PASSPORT|CARD|DOCUMENT)\s*N[O0]/.test(lines[index]!)) continue;
    const numbers = lines[index + 1]!.split(/\s+/).filter((word) => /^[A-Z0-9]{6,12}$/.test(word) && (word.match(/\d/g) ?? []).length >= 5);
    if (numbers.length === 1) return numbers[0]!;
  }
  return null;
}

function editDistance(first: string, second: string): number {
  let previous = Array.from({ length: second.length + 1 }, (_unused, index) => index);
  for (let row = 1; row <= first.length; row++) {
    const current = [row];
    for (let column = 1; column <= second.length; column++) {
      current[column] = Math.min(previous[column]! + 1, current[column - 1]! + 1, previous[column - 1]! + (first[row - 1] === second[column - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[second.length]!;
}

/**
 * The MRZ name field rebuilt from the printed page where one engine misread a letter (AHHAD for
 * AHMAD): a word is replaced only by a printed word that is close to it (two edits at most) AND
 * that the other engine's MRZ reading contains, so two independent readings agree on every
 * letter. Words under three letters are never replaced. Null when any word has no such
 * replacement, or more than one.
 */
export function namesConfirmedByPage(namesField: string, otherReadings: string[], visualText: string): string | null {
  const printed = [...words(printedLines(visualText))].filter((word) => /^[A-Z]+$/.test(word));
  const [surname = '', ...givenParts] = namesField.replace(/<+$/, '').split('<<');
  const parts = [surname, givenParts.join('<')].map((part) => part.split('<').filter((word) => word.length > 0));
  const snapped = parts.map((part) =>
    part.map((word) => {
      if (printed.includes(word)) return word;
      // Short words are weak evidence (the LSTM engine's noise is full of L and A): they must be printed exactly.
      const matches = printed.filter((candidate) => candidate.length >= 3 && Math.abs(candidate.length - word.length) <= 1 && editDistance(candidate, word) <= 2 && otherReadings.some((reading) => reading.includes(candidate)));
      return matches.length === 1 ? matches[0]! : null;
    }),
  );
  if (snapped.some((part) => part.some((word) => word === null))) return null;
  const rebuilt = snapped.map((part) => part.join('<')).filter((part) => part.length > 0).join('<<');
  return rebuilt.length > namesField.length ? null : rebuilt.padEnd(namesField.length, '<');
}

export function crossCheckVisualZone(text: string, fields: Record<string, string>): VisualZoneCheck {
  const lines = printedLines(text);
  const printed = words(lines);
  const nameWords = `${fields.surname ?? ''} ${fields.givenNames ?? ''}`.split(/\s+/).filter((word) => word.length > 0);
  const namesConfirmed = Boolean(fields.surname) && nameWords.every((word) => printed.has(word));
  const documentNumberConfirmed = Boolean(fields.documentNumber) && printed.has(fields.documentNumber!);

  const contradictions: string[] = [];
  const birth = printedBirthDate(lines);
  if (birth !== null && fields.dateOfBirth && differingCharacters(birth, fields.dateOfBirth) >= 2) {
    contradictions.push('the printed date of birth differs from the one in the machine-readable zone');
  }
  const number = printedDocumentNumber(lines);
  if (number !== null && fields.documentNumber && !documentNumberConfirmed && differingCharacters(number, fields.documentNumber) >= 2) {
    contradictions.push('the printed document number differs from the one in the machine-readable zone');
  }
  return { namesConfirmed, documentNumberConfirmed, contradictions };
}
