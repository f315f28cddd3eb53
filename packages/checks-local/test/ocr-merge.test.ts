import { parse } from 'mrz';
import { describe, expect, it } from 'vitest';
import { assessRead } from '../src/ocr/answer.js';
import { checkDigit, isIcaoCountryCode } from '../src/ocr/icao.js';
import { fieldsFrom, isoDateFrom } from '../src/ocr/mrz-fields.js';
import { TD1, TD3, alignToLayout, mrzLinesIn } from '../src/ocr/mrz-layout.js';
import { mergeReadings, resolveCountry } from '../src/ocr/mrz-merge.js';
import { crossCheckVisualZone, namesConfirmedByPage } from '../src/ocr/visual-zone.js';

const TODAY = new Date('2025-06-01T00:00:00Z');
// A valid TD3 (digits checked with the `mrz` package in the first test).
const PASSPORT = ['P<SYRJABER<<NOUR<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'N538893331SYR6810096F290216402558288077<<<22'];
const CARD = ['IDSYR538893332005582880776<<<<', '9604076F3302163SYR<<<<<<<<<<<8', 'JABER<<NOUR<<<<<<<<<<<<<<<<<<<'];

function withText(line: string, at: number, text: string): string {
  return line.slice(0, at) + text + line.slice(at + text.length);
}

describe('ICAO rules', () => {
  it('computes the 7-3-1 check digits the fixtures carry, as the mrz package does', () => {
    expect(parse(PASSPORT).valid).toBe(true);
    expect(parse(CARD).valid).toBe(true);
    expect(checkDigit('N53889333')).toBe('1');
    expect(checkDigit('681009')).toBe('6');
    expect(checkDigit('ABC$')).toBeNull();
  });

  it('knows ICAO country codes, fillers included, and nothing that only looks like one', () => {
    expect(isIcaoCountryCode('SYR')).toBe(true);
    expect(isIcaoCountryCode('D<<')).toBe(true);
    expect(isIcaoCountryCode('8YR')).toBe(false);
    expect(isIcaoCountryCode('3YR')).toBe(false);
    expect(isIcaoCountryCode('SYX')).toBe(false);
  });
});

describe('country-code resolution', () => {
  it('resolves the legacy engine reading 8YR or 3YR with the other engine reading SYR', () => {
    expect(resolveCountry(['8YR', 'SYR'])).toEqual({ value: 'SYR', status: 'resolved' });
    expect(resolveCountry(['SYR', '3YR'])).toEqual({ value: 'SYR', status: 'resolved' });
    expect(resolveCountry(['SYR', 'SYR'])).toEqual({ value: 'SYR', status: 'agreed' });
  });

  it('never passes a code both engines misread, nor two different real codes', () => {
    expect(resolveCountry(['8YR', '8YR'])).toEqual({ value: null, status: 'unresolved' });
    expect(resolveCountry(['8YR', '3YR'])).toEqual({ value: null, status: 'unresolved' });
    expect(resolveCountry(['SYR', 'LBN'])).toEqual({ value: null, status: 'conflict' });
  });

  it('takes SYR from the LSTM line when the legacy line reads 8YR after a digit, and the read stays valid', () => {
    const legacy = [PASSPORT[0]!, withText(PASSPORT[1]!, 10, '8YR')];
    const merged = mergeReadings([{ engine: 'legacy', lines: legacy }, { engine: 'lstm', lines: PASSPORT }], TD3)!;
    expect(merged.lines).toEqual(PASSPORT);
    expect(merged.status.nationality).toBe('resolved');
    expect(assessRead(merged, null).mrzValid).toBe(true);
  });

  it('does not pass a line where both engines read 8YR, although every check digit still adds up', () => {
    const misread = [PASSPORT[0]!, withText(PASSPORT[1]!, 10, '8YR')];
    const merged = mergeReadings([{ engine: 'legacy', lines: misread }, { engine: 'lstm', lines: misread }], TD3)!;
    expect(Object.values(merged.checkDigits).every(Boolean)).toBe(true);
    expect(merged.status.nationality).toBe('unresolved');
    const assessment = assessRead(merged, { namesConfirmed: true, documentNumberConfirmed: true, contradictions: [] });
    expect(assessment.mrzValid).toBe(false);
    expect(assessment.confidenceScore).toBeLessThan(0.8);
  });
});

describe('merging two engines by check digit', () => {
  it('takes each guarded field from the reading that passes its check digit', () => {
    // Legacy misreads the birth date (B for 8), LSTM the document number (one digit off).
    const legacy = [PASSPORT[0]!, withText(PASSPORT[1]!, 13, '6B1009')];
    const lstm = [PASSPORT[0]!.replace(/</g, 'K').replace(/^PK/, 'P<'), withText(PASSPORT[1]!, 0, 'N53889533')];
    const merged = mergeReadings([{ engine: 'legacy', lines: legacy }, { engine: 'lstm', lines: lstm }], TD3)!;
    expect(merged.lines).toEqual(PASSPORT);
    expect(merged.checkDigits).toEqual({ documentNumber: true, dateOfBirth: true, expiryDate: true, personalNumber: true, composite: true });
    expect(merged.namesAgree).toBe(false);
  });

  it('leaves a field unresolved, and the read invalid, when no reading passes its digit', () => {
    const wrong = [PASSPORT[0]!, withText(PASSPORT[1]!, 0, 'N53889339')];
    const merged = mergeReadings([{ engine: 'legacy', lines: wrong }, { engine: 'lstm', lines: wrong }], TD3)!;
    expect(merged.checkDigits.documentNumber).toBe(false);
    expect(assessRead(merged, null).mrzValid).toBe(false);
    expect(assessRead(merged, null).confidenceScore).toBeLessThan(0.5);
  });

  it('picks the TD1 optional field that makes the composite digit pass', () => {
    const lstm = [withText(CARD[0]!, 26, 'LKLL'), withText(CARD[1]!, 18, 'LKLLLLLLLKK'), 'JABER<K<KNOUR<K<K<KLKLLLKLLLKL'];
    const legacy = [withText(CARD[0]!, 20, '8B07'), CARD[1]!, CARD[2]!];
    const merged = mergeReadings([{ engine: 'legacy', lines: legacy }, { engine: 'lstm', lines: lstm }], TD1)!;
    expect(merged.lines).toEqual(CARD);
    expect(merged.checkDigits.composite).toBe(true);
  });

  it('works with one engine only, without calling the names agreed', () => {
    const merged = mergeReadings([{ engine: 'legacy', lines: null }, { engine: 'lstm', lines: CARD }], TD1)!;
    expect(merged.lines).toEqual(CARD);
    expect(merged.namesAgree).toBe(false);
    expect(merged.engineAgreement).toBe(0);
    expect(mergeReadings([{ engine: 'legacy', lines: null }, { engine: 'lstm', lines: null }], TD1)).toBeNull();
  });
});

describe('reading MRZ lines out of OCR text', () => {
  it('finds the MRZ lines below printed text, dropping spaces and fixing the length', () => {
    const text = `DAMASCUS\n16 FEB 2023\nP<SYRJ ABER<<NOUR<<<<<<<<<<<<<<<<<<<<<<<<<\n${PASSPORT[1]}KK\n`;
    expect(mrzLinesIn(text, TD3)).toEqual(PASSPORT);
    expect(mrzLinesIn('SYRIAN ARAB REPUBLIC\nPASSPORT\n', TD3)).toBeNull();
    expect(mrzLinesIn(PASSPORT.join('\n'), TD1)?.[0]).toBeNull();
  });

  it('keeps the lines an engine did find when it missed one, placed by their content', () => {
    expect(mrzLinesIn(`SYRALCHALRBI<<MOMANNAD\n${PASSPORT[1]}`, TD3)).toEqual([null, PASSPORT[1]]);
    expect(mrzLinesIn(`${CARD[1]}\nJABER<<NOUR<<<<<<<<<<<<<<<<<<`, TD1)).toEqual([null, CARD[1], CARD[2]]);
    // Two lines that both look like the data line: no guessing.
    expect(mrzLinesIn(`${PASSPORT[1]}\n${PASSPORT[1]}`, TD3)).toBeNull();
  });

  it('merges an engine that read only the data line with one that read both', () => {
    const legacy = [PASSPORT[0]!, withText(PASSPORT[1]!, 20, 'H')];
    const merged = mergeReadings([{ engine: 'legacy', lines: legacy }, { engine: 'lstm', lines: [null, PASSPORT[1]!] }], TD3)!;
    expect(merged.lines).toEqual(PASSPORT);
    expect(merged.status.sex).toBe('resolved');
    expect(mergeReadings([{ engine: 'legacy', lines: [null, PASSPORT[1]!] }, { engine: 'lstm', lines: [null, PASSPORT[1]!] }], TD3)).toBeNull();
  });
});

describe('fields from the MRZ', () => {
  it('gives ISO dates, spaced names and numbers without fillers', () => {
    expect(fieldsFrom(PASSPORT, TD3, TODAY)).toEqual({
      documentNumber: 'N53889333',
      surname: 'JABER',
      givenNames: 'NOUR',
      nationality: 'SYR',
      issuingState: 'SYR',
      dateOfBirth: '1968-10-09',
      sex: 'F',
      expiryDate: '2029-02-16',
      personalNumber: '02558288077',
    });
    expect(fieldsFrom(CARD, TD1, TODAY)).toMatchObject({ documentNumber: '538893332', personalNumber: '05582880776', dateOfBirth: '1996-04-07' });
  });

  it('puts births in the past century when needed and refuses impossible dates', () => {
    expect(isoDateFrom('050101', 'birth', TODAY)).toBe('2005-01-01');
    expect(isoDateFrom('300101', 'birth', TODAY)).toBe('1930-01-01');
    expect(isoDateFrom('310101', 'expiry', TODAY)).toBe('2031-01-01');
    expect(isoDateFrom('900231', 'birth', TODAY)).toBeNull();
    expect(isoDateFrom('9O0101', 'birth', TODAY)).toBeNull();
  });
});

describe('visual-zone cross-check', () => {
  const fields = { surname: 'AL HALABI', givenNames: 'MOHAMMAD KHALED', documentNumber: 'N53889333', dateOfBirth: '1968-10-09' };
  const page = ['Passport No.', 'N53889333', 'Surname', 'AL HALABI', 'Given names', 'MOHAMMAD KHALED', 'Date of birth Sex', '09 OCT 1968 M'].join('\n');

  it('confirms names only when every word is printed exactly, never from the MRZ itself', () => {
    expect(crossCheckVisualZone(page, fields)).toEqual({ namesConfirmed: true, documentNumberConfirmed: true, contradictions: [] });
    expect(crossCheckVisualZone(page.replace('KHALED', 'KHALID'), fields).namesConfirmed).toBe(false);
    expect(crossCheckVisualZone('P<SYRAL<HALABI<<MOHAMMAD<KHALED<<<<<<<<<<<<<<<<<', fields).namesConfirmed).toBe(false);
  });

  it('reports a printed date of birth or document number that contradicts the MRZ, but not one-character OCR noise', () => {
    expect(crossCheckVisualZone(page.replace('09 OCT 1968', '09 OCT 1986'), fields).contradictions).toEqual(['the printed date of birth differs from the one in the machine-readable zone']);
    expect(crossCheckVisualZone(page.replace('09 OCT 1968', '08 OCT 1968'), fields).contradictions).toEqual([]);
    expect(crossCheckVisualZone(page.replace('N53889333', 'N71889324'), fields).contradictions).toEqual(['the printed document number differs from the one in the machine-readable zone']);
    const card = 'Card No. Date of birth Date of expiry\n538893332 07 APR 1996 16 FEB 2033';
    expect(crossCheckVisualZone(card, { documentNumber: '538893332', dateOfBirth: '1996-04-07' }).contradictions).toEqual([]);
    expect(crossCheckVisualZone(card, { documentNumber: '538893332', dateOfBirth: '2033-02-16' }).contradictions).toHaveLength(1);
  });
});

describe('names rebuilt from the printed page', () => {
  const page = 'Surname\nJABER\nGiven names\nAHMAD\n';

  it('replaces a misread word only by a printed word the other engine also read', () => {
    const legacy = 'JABER<<AHHAD<<<<<<<<<<<<<<<<<';
    const rebuilt = namesConfirmedByPage(legacy, ['JABER<KAHMAD<<<KKLLLLLLLLLLLLL'], page);
    expect(rebuilt).toBe('JABER<<AHMAD<<<<<<<<<<<<<<<<<');
    expect(rebuilt).toHaveLength(legacy.length);
  });

  it('refuses when the other engine does not back the printed word, or the word is short', () => {
    expect(namesConfirmedByPage('JABER<<AHHAD<<<<<<<<<<<<<<<<<', ['JABER<KAHHADK<<KKLLLLLLLLLLLLL'], page)).toBeNull();
    expect(namesConfirmedByPage('AI<ATTAR<<OMAR<<<<<<<<<<<<<<<<', ['AL<ATTAR<<OMAR<<<<<<<<<<<<<<<<'], 'AL ATTAR\nOMAR')).toBeNull();
  });
});

describe('fitting a line read too long or too short', () => {
  it('removes the character that shifted the data line, found by its check digits', () => {
    const withSpeck = `${PASSPORT[1]!.slice(0, 16)}7${PASSPORT[1]!.slice(16)}`;
    expect(alignToLayout(withSpeck, 1, TD3)).toBe(PASSPORT[1]);
    // A D before the N: dropping either passes the same digits (N and D weigh the same mod 10), so it is not guessed.
    const ambiguous = `${PASSPORT[1]!.slice(0, 1)}D${PASSPORT[1]!.slice(1)}`;
    expect(alignToLayout(ambiguous, 1, TD3)).toBe(ambiguous.slice(0, 44));
    expect(alignToLayout(`${PASSPORT[0]}KL`, 0, TD3)).toBe(PASSPORT[0]);
  });

  it('drops a stray one-character word before a line that is too long with it', () => {
    expect(mrzLinesIn(`${CARD[0]}\n${CARD[1]}\n1 ${CARD[2]}<`, TD1)).toEqual(CARD);
  });
});
