import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, encodeCsv, encodeCsvField, encodeCsvRecord, neutraliseFormula, parseCsv, parseCsvObjects } from '../src/index.js';

describe('encodeCsvField', () => {
  it('neutralises every formula trigger in text and leaves other text alone', () => {
    for (const trigger of ['=', '+', '-', '@', '\t', '\r']) expect(neutraliseFormula(`${trigger}SUM(A1)`)).toBe(`'${trigger}SUM(A1)`);
    expect(neutraliseFormula('Ahmad =1')).toBe('Ahmad =1');
    expect(encodeCsvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
  });

  it('quotes commas, quotes and line breaks (RFC 4180 §2.6–2.7) and writes numbers, booleans and nothing as they are', () => {
    expect(encodeCsvField('a,b')).toBe('"a,b"');
    expect(encodeCsvField('say "hi"')).toBe('"say ""hi"""');
    expect(encodeCsvField('two\nlines')).toBe('"two\nlines"');
    expect(encodeCsvField(-3.5)).toBe('-3.5');
    expect(encodeCsvField(false)).toBe('false');
    expect(encodeCsvField(null)).toBe('');
    expect(encodeCsvField(undefined)).toBe('');
    expect(encodeCsvField('دمشق')).toBe('دمشق');
  });

  it('ends every record, the last one too, with CRLF, and writes a header before the rows', () => {
    expect(encodeCsvRecord(['a', 1, null])).toBe('a,1,\r\n');
    expect(encodeCsv(['name', 'rate'] as const, [{ name: 'USD', rate: 13000 }, { name: 'EUR', rate: null }])).toBe('name,rate\r\nUSD,13000\r\nEUR,\r\n');
  });
});

describe('parseCsv', () => {
  it('reads back what the encoder wrote, quoted commas, quotes and line breaks included', () => {
    const values = ['plain', 'a,b', 'say "hi"', 'two\r\nlines', 'حلب'];
    const rows = parseCsv(encodeCsvRecord(values) + encodeCsvRecord(['next', '', '', '', '']));
    expect(rows.map((row) => row.cells)).toEqual([values, ['next', '', '', '', '']]);
  });

  it('names the line each record starts on, past skipped empty lines and multi-line fields', () => {
    const rows = parseCsv('\uFEFFh1,h2\n\n"a\nb",c\nd, e \n');
    expect(rows).toEqual([
      { line: 1, cells: ['h1', 'h2'] },
      { line: 3, cells: ['a\nb', 'c'] },
      { line: 5, cells: ['d', 'e'] },
    ]);
  });

  it('refuses an unterminated quote as a whole, naming a line, instead of returning part of the text', () => {
    const parsing = () => parseCsv('a,b\n"open,c\nd,e\n');
    expect(parsing).toThrow(CsvSyntaxError);
    try {
      parsing();
    } catch (error) {
      expect((error as CsvSyntaxError).line).toBeGreaterThan(0);
    }
  });

  it('refuses a quote inside an unquoted field', () => {
    expect(() => parseCsv('a,b"c\n')).toThrow(CsvSyntaxError);
  });
});

describe('parseCsvObjects', () => {
  it('keys each row by the header, a short row filled with empty cells', () => {
    expect(parseCsvObjects('currency,rate\r\nUSD,"13,000"\r\nEUR\r\n')).toEqual([
      { currency: 'USD', rate: '13,000' },
      { currency: 'EUR', rate: '' },
    ]);
    expect(parseCsvObjects('')).toEqual([]);
  });
});
