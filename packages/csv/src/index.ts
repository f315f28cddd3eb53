import { parse } from 'csv-parse/sync';

/**
 * One CSV dialect for both services: RFC 4180 (comma, double quotes, CRLF after every record)
 * with spreadsheet formula neutralisation on text cells, and a real parser for imports, so no
 * caller splits on commas or quotes by hand.
 */
export type CsvValue = string | number | boolean | null | undefined;

const CRLF = '\r\n';

// OWASP "CSV Injection": a spreadsheet evaluates a cell that starts with one of these.
const FORMULA_TRIGGER = /^[=+\-@\t\r]/;
// RFC 4180 §2.6: these force a field into quotes.
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A text cell made inert for spreadsheets: a leading `'` makes Excel, LibreOffice and Google
 * Sheets show the text instead of evaluating it (OWASP).
 */
export function neutraliseFormula(text: string): string {
  return FORMULA_TRIGGER.test(text) ? `'${text}` : text;
}

/**
 * One field: null and undefined are empty cells; numbers and booleans are the service's own and
 * written as they are (a negative number is data, not a formula); text is neutralised, then
 * quoted when RFC 4180 requires it, with its quotes doubled.
 */
export function encodeCsvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = neutraliseFormula(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record with its CRLF (RFC 4180 §2.1; the last record ends with one too). */
export function encodeCsvRecord(values: readonly CsvValue[]): string {
  return values.map(encodeCsvField).join(',') + CRLF;
}

/** A header record and one record per row, the columns in the header's order. */
export function encodeCsv<Column extends string>(columns: readonly Column[], rows: Iterable<Readonly<Record<Column, CsvValue>>>): string {
  let text = encodeCsvRecord(columns);
  for (const row of rows) text += encodeCsvRecord(columns.map((column) => row[column]));
  return text;
}

/** A parsed record with the 1-based line it started on, so errors can name the line. */
export interface CsvRow {
  line: number;
  cells: string[];
}

/** Why a CSV text could not be read, with the line the parser stopped at. */
export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

/**
 * Records of an RFC 4180 text: quoted fields may hold commas, quotes and line breaks; cells are
 * trimmed; empty lines are skipped; a leading byte-order mark is dropped. Throws CsvSyntaxError
 * (never a partial result) on an unterminated quote or a stray quote inside a field.
 */
export function parseCsv(text: string): CsvRow[] {
  try {
    const records = parse(text, { bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, info: true }) as unknown as { record: string[]; info: { lines: number; records: number } }[];
    return records.map(({ record, info }) => ({ line: info.lines - newlinesIn(record), cells: record }));
  } catch (error) {
    const line = typeof (error as { lines?: unknown }).lines === 'number' ? (error as { lines: number }).lines : 0;
    throw new CsvSyntaxError(error instanceof Error ? error.message : String(error), line);
  }
}

// csv-parse reports the line a record ends on; a quoted field with line breaks started earlier.
function newlinesIn(record: readonly string[]): number {
  return record.reduce((total, cell) => total + (cell.match(/\r\n|\n|\r/g)?.length ?? 0), 0);
}

/** Records keyed by the first record's column names (a feed's rows), parsed as `parseCsv` does. */
export function parseCsvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map(({ cells }) => Object.fromEntries(header.cells.map((column, index) => [column, cells[index] ?? ''])));
}
