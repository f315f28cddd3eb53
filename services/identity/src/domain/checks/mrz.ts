import { parse } from 'mrz';

export interface MrzCheck {
  /** null when the document has no MRZ text at all. */
  valid: boolean | null;
  /** Check-digit fields that failed, or why the text is no MRZ. */
  failures: string[];
}

/**
 * ICAO 9303 check digits of a TD1 (national ID card, 3 × 30) or TD3 (passport, 2 × 44) MRZ.
 * Only the check digits decide: the `mrz` package also flags state codes it does not know
 * (ICAO's own specimens use UTO), which says nothing about tampering.
 */
export function checkMrz(rawText: string | null): MrzCheck {
  const lines = (rawText ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  if (lines.length === 0) return { valid: null, failures: [] };
  let result: ReturnType<typeof parse>;
  try {
    result = parse(lines);
  } catch (error) {
    return { valid: false, failures: [`not an MRZ: ${(error as Error).message}`] };
  }
  if (result.format !== 'TD1' && result.format !== 'TD3') return { valid: false, failures: [`${result.format} is not a TD1 or TD3 MRZ`] };
  const failures = result.details.filter((detail) => /CheckDigit$/.test(detail.field ?? '') && !detail.valid).map((detail) => `${detail.field}: ${detail.error ?? 'invalid'}`);
  return { valid: failures.length === 0, failures };
}
