/**
 * Deciding an Arabic field from several OCR readings. A value is stored only when independent
 * readings agree on it, and how much agreement it needs depends on what the value is:
 * - a name or place the lexicon knows needs three readings, from both models, and no reading
 *   of another known name; one that is a letter away from another known name (ريم/مريم,
 *   سامر/سامي: the letter a model most often drops or swaps) needs four, and no reading of that
 *   neighbour;
 * - a word the lexicon does not know needs four readings from both models, every word three
 *   letters or more, no final ي/ى (every model reads a printed final ي as ى), and must not be a
 *   known name misread: a letter from one once hamza seats are folded, two for long names
 *   (إبراهير and ابراهيو are إبراهيم misread, not new names).
 * The stored value of a known name is the lexicon's spelling, which the readings matched up to
 * the final ي/ى only. Tesseract's raw-line and single-word modes sometimes add a phantom alef
 * before the text; such a reading counts for the name without it when the name begins otherwise.
 */
import { agreementForm, comparisonForm, editDistance, isArabicWords } from './text.js';

export type ArabicModel = 'ara' | 'Arabic';

export interface FieldReading {
  model: ArabicModel;
  text: string;
  /** Read in tesseract's raw-line or single-word mode, which may add a phantom alef before the text. */
  phantomAlef?: boolean;
}

const KNOWN_VOTES = 3;
const NEIGHBOURED_VOTES = 4;
const UNKNOWN_VOTES = 4;
const READINGS_PER_MODEL = 3;

/** A reading's Arabic letters (no digits, punctuation or harakat) in the agreement form. */
export function readingForm(raw: string): string {
  return agreementForm(raw.normalize('NFC').replace(/[\u064B-\u065F\u0670]/gu, '').replace(/[^\u0621-\u064A\u0671-\u06D3\u0640 ]/gu, ' '));
}

/** The final ي/ى folded: the one difference the models cannot see. */
function looseKey(text: string): string {
  return text.replace(/ي(?=\s|$)/gu, 'ى');
}

export interface Lexicon {
  /** The entry a reading spells, up to the final ي/ى. */
  entryOf(reading: string): string | undefined;
  /** The same, for a reading in raw-line mode, which may begin with a phantom alef (اقصاب for قصاب). */
  entryOfRawLine(reading: string): string | undefined;
  /** Known entries one letter away from an entry or reading (not the entry itself). */
  neighboursOf(text: string): string[];
  /** Whether a reading could be a known name misread: a letter from one once hamza seats are folded, two for names of six letters or more. */
  nearKnown(reading: string): boolean;
}

export function createLexicon(entries: readonly string[]): Lexicon {
  const byKey = new Map<string, string>();
  for (const entry of entries) byKey.set(looseKey(agreementForm(entry)), entry);
  const keys = [...byKey.keys()];
  const neighbours = new Map<string, string[]>();
  // comparisonForm folds hamza seats and ى/ي, the differences a misreading of a known name hides behind.
  const folded = keys.map(comparisonForm);
  return {
    nearKnown(reading) {
      const key = comparisonForm(reading);
      return folded.some((other) => Math.abs(other.length - key.length) <= 2 && editDistance(other, key) <= (Math.min(other.length, key.length) >= 6 ? 2 : 1));
    },
    entryOf: (reading) => byKey.get(looseKey(reading)),
    entryOfRawLine(reading) {
      const exact = byKey.get(looseKey(reading));
      if (exact !== undefined || !reading.startsWith('ا')) return exact;
      const withoutAlef = byKey.get(looseKey(reading.slice(1).trimStart()));
      return withoutAlef !== undefined && !/^[اأإآ]/u.test(withoutAlef) ? withoutAlef : undefined;
    },
    neighboursOf(text) {
      const key = looseKey(text);
      let found = neighbours.get(key);
      if (found === undefined) {
        found = keys.filter((other) => other !== key && Math.abs(other.length - key.length) <= 1 && editDistance(other, key) === 1).map((other) => byKey.get(other)!);
        neighbours.set(key, found);
      }
      return found;
    },
  };
}

function tally<T>(items: T[], keyOf: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

const bothModels = (readings: FieldReading[]) => new Set(readings.map((reading) => reading.model)).size === 2;

/** The value several readings of one Arabic field agree on, or null for the reviewer. */
export function decideWords(raw: FieldReading[], lexicon: Lexicon): string | null {
  const readings = raw.map((reading) => ({ ...reading, text: readingForm(reading.text) })).filter((reading) => reading.text.length > 0);
  const known = [...tally(readings, (reading) => (reading.phantomAlef === true ? lexicon.entryOfRawLine(reading.text) : lexicon.entryOf(reading.text))).entries()].sort((first, second) => second[1].length - first[1].length);
  const [best, runnerUp] = known;
  if (best !== undefined) {
    const [entry, votes] = best;
    if (runnerUp !== undefined && runnerUp[1].length >= 2) return null;
    const neighbours = lexicon.neighboursOf(agreementForm(entry));
    const neighbourRead = neighbours.some((neighbour) => known.some(([other]) => other === neighbour));
    const needed = neighbours.length > 0 ? NEIGHBOURED_VOTES : KNOWN_VOTES;
    // One model is enough when all three of its readings spell the name and the other model's spell no known name at all.
    const model = votes[0]!.model;
    const oneModelUnanimous = known.length === 1 && votes.length === READINGS_PER_MODEL && raw.filter((reading) => reading.model === model).length === READINGS_PER_MODEL && votes.every((vote) => vote.model === model);
    if (!neighbourRead && ((votes.length >= needed && bothModels(votes)) || oneModelUnanimous)) return entry;
    if (votes.length >= 2) return null;
  }
  const [unknown] = [...tally(readings, (reading) => reading.text).entries()].sort((first, second) => second[1].length - first[1].length);
  if (unknown === undefined) return null;
  const [value, votes] = unknown;
  if (lexicon.entryOf(value) !== undefined || lexicon.nearKnown(value)) return null;
  const finalYa = /[يى](\s|$)/u.test(value);
  return votes.length >= UNKNOWN_VOTES && bothModels(votes) && isArabicWords(value) && !finalYa ? value : null;
}

/**
 * A civil registry line (place, quarter, number): four readings from both models equal letter for
 * letter, its words a known place and a known quarter (a first word that lost a letter, مص for
 * حمص, is otherwise agreed on), its number in Western digits: tesseract lays Arabic-Indic digits
 * out in reverse order, with direction marks, so those lines are the reviewer's.
 */
export function decideLine(raw: FieldReading[], places: Lexicon): string | null {
  const readings = raw.map((reading) => ({ model: reading.model, text: agreementForm(reading.text) })).filter((reading) => reading.text.length > 1);
  const [top] = [...tally(readings, (reading) => reading.text).entries()].sort((first, second) => second[1].length - first[1].length);
  if (top === undefined || top[1].length < UNKNOWN_VOTES || !bothModels(top[1])) return null;
  const match = /^([\u0621-\u064A ]+) ([0-9]+)$/u.exec(top[0]);
  if (match === null) return null;
  const words = match[1]!.split(' ');
  for (let split = 1; split < words.length; split += 1) {
    const place = places.entryOf(words.slice(0, split).join(' '));
    const quarter = places.entryOf(words.slice(split).join(' '));
    if (place !== undefined && quarter !== undefined) return `${place} ${quarter} ${match[2]!}`;
  }
  return null;
}
