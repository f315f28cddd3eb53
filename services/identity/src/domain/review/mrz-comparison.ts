import { parse } from 'mrz';
import { FIELDS_TO_CONFIRM_KEY, fieldsToConfirmOf } from '../cases/fields-to-confirm.js';

export interface FieldComparison {
  field: string;
  ocr: string | null;
  mrz: string | null;
  /** null when one side is missing: nothing to compare. */
  matches: boolean | null;
}

/** The OCR field names the checks write, each with the MRZ field it should agree with. */
const FIELD_PAIRS = [
  ['surname', 'lastName'],
  ['givenNames', 'firstName'],
  ['documentNumber', 'documentNumber'],
  ['dateOfBirth', 'birthDate'],
  ['nationality', 'nationality'],
  ['expiryDate', 'expirationDate'],
] as const;

/** YYMMDD as ISO: a birth year after this year's two digits is last century; expiry dates are this one. */
function mrzDate(value: string, kind: 'birth' | 'expiry', now: Date): string {
  if (!/^\d{6}$/.test(value)) return value;
  const year = Number(value.slice(0, 2));
  const century = kind === 'expiry' || year <= now.getUTCFullYear() % 100 ? 2000 : 1900;
  return `${century + year}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
}

/** Letters and digits only, upper-case: the MRZ writes spaces as `<` and has no lower case. */
const normalise = (value: string) => value.toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * What the reviewer compares: each field the OCR read beside the same field in the MRZ, with a
 * mismatch marked. The MRZ is parsed even when its check digits fail (that is often why the case
 * waits for a person); without MRZ text the comparison lists the OCR fields alone.
 */
export function compareOcrWithMrz(extractedFieldsJson: string, mrzRawText: string | null, now: Date): FieldComparison[] {
  let ocr: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(extractedFieldsJson);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) ocr = parsed as Record<string, unknown>;
  } catch {
    // Stored by the checks as JSON; anything else compares as no fields.
  }
  let mrz: Record<string, string | null> = {};
  const lines = (mrzRawText ?? '').split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  if (lines.length > 0) {
    try {
      mrz = parse(lines).fields;
    } catch {
      // Not an MRZ at all: the OCR side stands alone.
    }
  }
  const rows: FieldComparison[] = [];
  const paired = new Set<string>();
  for (const [ocrField, mrzField] of FIELD_PAIRS) {
    paired.add(ocrField);
    const value = ocr[ocrField];
    const ocrValue = typeof value === 'string' ? value : null;
    const rawMrz = mrz[mrzField] ?? null;
    const mrzValue = rawMrz === null || rawMrz === '' ? null : mrzField === 'birthDate' ? mrzDate(rawMrz, 'birth', now) : mrzField === 'expirationDate' ? mrzDate(rawMrz, 'expiry', now) : rawMrz;
    if (ocrValue === null && mrzValue === null) continue;
    rows.push({ field: ocrField, ocr: ocrValue, mrz: mrzValue, matches: ocrValue === null || mrzValue === null ? null : normalise(ocrValue) === normalise(mrzValue) });
  }
  for (const [field, value] of Object.entries(ocr)) {
    if (!paired.has(field) && field !== FIELDS_TO_CONFIRM_KEY && typeof value === 'string') rows.push({ field, ocr: value, mrz: null, matches: null });
  }
  // Each field the reader left to confirm gets its row, empty, for the reviewer to fill in.
  for (const field of fieldsToConfirmOf(ocr)) {
    if (!rows.some((row) => row.field === field)) rows.push({ field, ocr: null, mrz: null, matches: null });
  }
  return rows;
}
