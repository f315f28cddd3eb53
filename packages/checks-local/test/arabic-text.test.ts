import { describe, expect, it } from 'vitest';
import { compareArabicLatin } from '../src/arabic/name-agreement.js';
import { parseNationalNumber } from '../src/arabic/national-number.js';
import { comparisonForm, displayForm, westernDigits } from '../src/arabic/text.js';

describe('Arabic text forms', () => {
  it('stores NFC without tatweel and keeps letters as printed', () => {
    expect(displayForm('محـــمد  أحمد')).toBe('محمد أحمد');
    expect(displayForm('\u0627\u0653')).toBe('\u0622');
  });
  it('compares hamza seats, alef maqsura and Persian look-alikes as one', () => {
    expect(comparisonForm('إيمان')).toBe(comparisonForm('ايمان'));
    expect(comparisonForm('مصطفى')).toBe(comparisonForm('مصطفي'));
    expect(comparisonForm('علی')).toBe(comparisonForm('علي'));
    expect(comparisonForm('أحمد')).not.toBe(comparisonForm('أخمد'));
  });
  it('reads Arabic-Indic and Persian digits as Western ones', () => {
    expect(westernDigits('٠١٢٣٤٥٦٧٨٩ ۴۵۶')).toBe('0123456789 456');
  });
});

describe('national number', () => {
  it('accepts 11 digits with a governorate prefix, in either digit set', () => {
    expect(parseNationalNumber('01234567890')).toBe('01234567890');
    expect(parseNationalNumber('١٤٠٠٠٠٠٠٠١٢')).toBe('14000000012');
    expect(parseNationalNumber('02 345 678 901')).toBe('02345678901');
  });
  it('refuses another length, an unknown governorate or letters', () => {
    expect(parseNationalNumber('0123456789')).toBeNull();
    expect(parseNationalNumber('012345678901')).toBeNull();
    expect(parseNationalNumber('15234567890')).toBeNull();
    expect(parseNationalNumber('00234567890')).toBeNull();
    expect(parseNationalNumber('0123456789O')).toBeNull();
  });
});

describe('Arabic/Latin name agreement', () => {
  it.each([
    ['محمد', 'MOHAMMAD'],
    ['محمد', 'MUHAMMAD'],
    ['محمد', 'MHD'],
    ['فاطمة', 'FATIMA'],
    ['فاطمة', 'FATMEH'],
    ['الإدلبي', 'ALIDLIBI'],
    ['الإدلبي', 'IDLEBI'],
    ['الحلبي', 'ALHALABI'],
    ['درويش', 'DARWICH'],
    ['قصاب', 'QASSAB'],
    ['عبد الرحمن', 'ABDURRAHMAN'],
    ['عبد الرحمن', 'ABDELRAHMAN'],
    ['مريم', 'MARYAM'],
    ['خالد', 'KHALED'],
  ])('%s and %s agree', (arabic, latin) => {
    expect(compareArabicLatin(arabic, latin)).toBe('agree');
  });
  it.each([
    ['محمد', 'KHALED'],
    ['الشامي', 'HADDAD'],
    ['مريم', 'FATIMA'],
  ])('%s and %s disagree', (arabic, latin) => {
    expect(compareArabicLatin(arabic, latin)).toBe('disagree');
  });
  it('calls short skeletons uncertain rather than a mismatch', () => {
    expect(compareArabicLatin('عمر', 'ALI')).toBe('uncertain');
    expect(compareArabicLatin('وائل', 'ALI')).toBe('uncertain');
    expect(compareArabicLatin('الشامي', 'ALSHAMI')).toBe('uncertain');
    expect(compareArabicLatin('آمنة', 'IMAN')).toBe('uncertain');
  });
});
