import { describe, expect, it } from 'vitest';
import { createLexicon, decideLine, decideWords, readingForm, type FieldReading } from '../src/arabic/field-vote.js';
import { editDistance } from '../src/arabic/text.js';
import { NAME_LEXICON, PLACE_LEXICON } from '../src/arabic/name-lexicon.js';

const names = createLexicon(['محمد', 'سامر', 'سامي', 'قصاب', 'مصطفى', 'أحمد', 'إبراهيم', 'عبد الرحمن']);
const places = createLexicon(['حمص', 'دير الزور', 'الميدان', 'باب توما']);

function readings(ara: string[], script: string[], phantomAlef = false): FieldReading[] {
  return [...ara.map((text) => ({ model: 'ara' as const, text })), ...script.map((text) => ({ model: 'Arabic' as const, text, phantomAlef }))];
}

describe('reading form', () => {
  it("folds the script model's Persian and Urdu letter forms to the Arabic letters they draw", () => {
    expect(readingForm('مصطفی')).toBe('مصطفى');
    expect(readingForm('درویش')).toBe('درويش');
    expect(readingForm('فاطمۃ')).toBe('فاطمة');
    expect(readingForm('ھدى')).toBe('هدى');
  });
  it('drops digits, punctuation and harakat', () => {
    expect(readingForm('يوسف.')).toBe('يوسف');
    expect(readingForm('مُحَمَّد 1')).toBe('محمد');
  });
  it('measures edits in letters, not UTF-16 units', () => {
    expect(editDistance('سامر', 'سامي')).toBe(1);
    expect(editDistance('ريم', 'مريم')).toBe(1);
    expect(editDistance('حمص', 'حمص')).toBe(0);
  });
});

describe('deciding a name from its readings', () => {
  it('stores a known name three readings from both models agree on', () => {
    expect(decideWords(readings(['قصاب', 'قصاب', ''], ['قصاب', '4 ۹', '']), names)).toBe('قصاب');
    // محمد is a letter from أحمد: it needs a fourth reading.
    expect(decideWords(readings(['محمد', 'محمد', ''], ['محمد', '4 ۹', '']), names)).toBeNull();
    expect(decideWords(readings(['محمد', 'محمد', ''], ['محمد', 'محمد', '']), names)).toBe('محمد');
  });
  it("stores the lexicon's spelling when the readings differ only in the final ي/ى", () => {
    expect(decideWords(readings(['مصطفي', 'مصطفى'], ['مصطفی', 'مصطفی']), names)).toBe('مصطفى');
  });
  it('asks four readings, and none of the neighbour, for a name one letter from another', () => {
    expect(decideWords(readings(['سامر', 'سامر'], ['سامر', 'ساص']), names)).toBeNull();
    expect(decideWords(readings(['سامر', 'سامر'], ['سامر', 'سامر']), names)).toBe('سامر');
    expect(decideWords(readings(['سامر', 'سامر', 'سامر'], ['سامر', 'سامي']), names)).toBeNull();
  });
  it('refuses two known names read twice each', () => {
    expect(decideWords(readings(['محمد', 'محمد', 'محمد'], ['أحمد', 'أحمد']), names)).toBeNull();
  });
  it("trusts one model when all three of its readings agree and the other's spell no known name", () => {
    expect(decideWords(readings(['', '', ''], ['قصاب', 'قصاب', 'قصاب']), names)).toBe('قصاب');
    expect(decideWords(readings(['قضاب', 'فصاب', ''], ['قصاب', 'قصاب', 'قصاب']), names)).toBe('قصاب');
    expect(decideWords(readings(['سامر', 'سامر', 'سامر'], ['ساص', 'سام', '']), names)).toBe('سامر');
    expect(decideWords(readings(['سامر', 'سامر', 'سامر'], ['سامي', '', '']), names)).toBeNull();
    expect(decideWords(readings(['محمد', '', ''], ['قصاب', 'قصاب', 'قصاب']), names)).toBeNull();
    expect(decideWords(readings(['', '', ''], ['قصاب', 'قصاب', 'ققصاب']), names)).toBeNull();
  });
  it("counts a raw-line reading's phantom alef out, unless the name begins with an alef", () => {
    expect(decideWords(readings(['قصاب', 'قصاب'], ['اقصاب', 'اقصاب'], true), names)).toBe('قصاب');
    expect(decideWords(readings(['قصاب', 'قصاب'], ['اقصاب', 'اقصاب'], false), names)).toBeNull();
  });
  it('never stores a misreading one letter from a known name, however many readings agree', () => {
    expect(decideWords(readings(['إبراهير', 'إبراهير', 'إبراهير'], ['إبراهير', 'إبراهير', 'إبراهير']), names)).toBeNull();
    // A hamza seat and a letter off (AlArabiya's م read as و) is still إبراهيم.
    expect(decideWords(readings(['ابراهيو', 'ابراهيو'], ['ابراهيو', 'ابراهيو']), names)).toBeNull();
  });
  it('stores an unknown name only when four readings from both models agree and it cannot be misread', () => {
    expect(decideWords(readings(['نزار', 'نزار'], ['نزار', 'نزار']), names)).toBe('نزار');
    expect(decideWords(readings(['نزار', 'نزار', 'نزار', 'نزار'], []), names)).toBeNull();
    expect(decideWords(readings(['نزار', 'نزار'], ['نزار']), names)).toBeNull();
    // A printed final ي is read as ى by every model: an unknown name ending in either is the reviewer's.
    expect(decideWords(readings(['الحمصى', 'الحمصى'], ['الحمصى', 'الحمصى']), names)).toBeNull();
    expect(decideWords(readings(['مر', 'مر'], ['مر', 'مر']), names)).toBeNull();
  });
  it('stores a two-word name as one value', () => {
    expect(decideWords(readings(['عبد الرحمن', 'عبد الرحمن'], ['عبد الرحمن', 'عبد الرحمن']), names)).toBe('عبد الرحمن');
  });
  it('stores nothing from no readings', () => {
    expect(decideWords([], names)).toBeNull();
    expect(decideWords(readings(['', ''], ['', '']), names)).toBeNull();
  });
});

describe('deciding a civil registry line', () => {
  it('stores a known place and quarter with a Western number that four readings from both models agree on', () => {
    expect(decideLine(readings(['حمص الميدان 12', 'حمص الميدان 12'], ['حمص الميدان 12', 'حمص الميدان 12']), places)).toBe('حمص الميدان 12');
    expect(decideLine(readings(['دير الزور باب توما 7', 'دير الزور باب توما 7'], ['دير الزور باب توما 7', 'دير الزور باب توما 7']), places)).toBe('دير الزور باب توما 7');
  });
  it('refuses a first word that lost a letter, Arabic-Indic digits and too little agreement', () => {
    expect(decideLine(readings(['مص الميدان 12', 'مص الميدان 12'], ['مص الميدان 12', 'مص الميدان 12']), places)).toBeNull();
    expect(decideLine(readings(['حمص الميدان ‎٠٠١‏', 'حمص الميدان ‎٠٠١‏'], ['حمص الميدان ‎٠٠١‏', 'حمص الميدان ‎٠٠١‏']), places)).toBeNull();
    expect(decideLine(readings(['حمص الميدان 12', 'حمص الميدان 12', 'حمص الميدان 12'], ['حمص الميدان 13']), places)).toBeNull();
  });
});

describe('the lexicon', () => {
  it('holds the common Syrian names and places, each once, in NFC', () => {
    expect(NAME_LEXICON.length).toBeGreaterThan(300);
    expect(PLACE_LEXICON.length).toBeGreaterThan(90);
    for (const entry of [...NAME_LEXICON, ...PLACE_LEXICON]) {
      expect(entry.normalize('NFC')).toBe(entry);
      expect(entry).toMatch(/^[\u0621-\u064A]+( [\u0621-\u064A]+)*$/u);
    }
    expect(NAME_LEXICON).toContain('عبد الرحمن');
    expect(PLACE_LEXICON).toContain('دير الزور');
  });
});
