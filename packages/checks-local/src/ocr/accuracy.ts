/**
 * How the OCR does on the synthetic set, per variant (clean, turned, noisy JPEG, half size,
 * tampered): the bench calls this and prints the table. A read is "valid" when identity would
 * accept it (MRZ valid, confidence at or above the threshold); validExact when its fields are
 * exactly the expected ones; falseValid when valid with any field wrong, the one outcome that
 * must stay at zero.
 */
import { parse } from 'mrz';
import { ManualReviewRequiredError, type DocumentType, type OcrAnswer } from '../contract.js';
import { generateSyntheticDocument, type Degradation, type MrzTamper } from '../synthetic/documents.js';

export interface AccuracyVariant {
  name: string;
  degradation?: Degradation;
  tamper?: MrzTamper;
}

export interface AccuracyCounts {
  total: number;
  validExact: number;
  rejected: number;
  falseValid: number;
  /** Median wall-clock seconds per read. */
  medianSeconds: number;
  /** Median CPU seconds per read (this process, worker threads included): comparable on a busy machine. */
  medianCpuSeconds: number;
}

export const ACCURACY_VARIANTS: AccuracyVariant[] = [
  { name: 'clean' },
  { name: 'rotated 2°', degradation: { rotationDegrees: 2 } },
  { name: 'rotated 5°', degradation: { rotationDegrees: -5 } },
  { name: 'noise + JPEG 60', degradation: { noise: 14, jpegQuality: 60 } },
  { name: 'half resolution', degradation: { scale: 0.5 } },
  { name: 'all of the above', degradation: { rotationDegrees: 3, noise: 10, jpegQuality: 70, scale: 0.6 } },
  { name: 'tampered check digit', tamper: 'documentNumberCheckDigit' },
];

/** identity's default OCR confidence threshold. */
export const ACCEPT_CONFIDENCE = 0.8;

export function isAcceptedRead(answer: OcrAnswer, threshold = ACCEPT_CONFIDENCE): boolean {
  if (answer.confidenceScore < threshold || answer.mrzRawText === null) return false;
  try {
    return parse(answer.mrzRawText.split('\n')).valid;
  } catch {
    return false;
  }
}

export function sameFields(actual: Record<string, string>, expected: Record<string, string>): boolean {
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual).filter((key) => key !== 'optionalData')]);
  return [...keys].every((key) => actual[key] === expected[key]);
}

function median(values: number[]): number {
  const sorted = [...values].sort((first, second) => first - second);
  return Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 1000) / 1000;
}

export async function measureAccuracy(
  read: (document: { documentType: DocumentType; front: { contentType: string; bytes: Buffer }; back: { contentType: string; bytes: Buffer } | null }) => Promise<OcrAnswer>,
  options: {
    seeds: number[];
    documentTypes?: DocumentType[];
    variants?: AccuracyVariant[];
    /** How each side reaches the OCR, when not as generated: e.g. placed in a camera frame and cut as the capture page cuts it. */
    photograph?: (side: { contentType: string; bytes: Buffer }) => Promise<{ contentType: string; bytes: Buffer }>;
  },
): Promise<Record<string, AccuracyCounts>> {
  const photograph = options.photograph ?? (async (side) => side);
  const table: Record<string, AccuracyCounts> = {};
  for (const documentType of options.documentTypes ?? (['SyrianPassport', 'SyrianNationalId'] as DocumentType[])) {
    for (const variant of options.variants ?? ACCURACY_VARIANTS) {
      const counts: AccuracyCounts = { total: 0, validExact: 0, rejected: 0, falseValid: 0, medianSeconds: 0, medianCpuSeconds: 0 };
      const seconds: number[] = [];
      const cpuSeconds: number[] = [];
      for (const seed of options.seeds) {
        const generated = await generateSyntheticDocument({ documentType, seed, degradation: variant.degradation, tamper: variant.tamper });
        const document = { ...generated, front: await photograph(generated.front), back: generated.back && (await photograph(generated.back)) };
        counts.total += 1;
        const started = performance.now();
        const cpuStarted = process.cpuUsage();
        try {
          const answer = await read(document);
          const exact = sameFields(answer.fields, document.expectedFields) && variant.tamper === undefined;
          if (!isAcceptedRead(answer)) counts.rejected += 1;
          else if (exact) counts.validExact += 1;
          else counts.falseValid += 1;
        } catch (error) {
          if (!(error instanceof ManualReviewRequiredError)) throw error;
          counts.rejected += 1;
        } finally {
          seconds.push((performance.now() - started) / 1000);
          const cpu = process.cpuUsage(cpuStarted);
          cpuSeconds.push((cpu.user + cpu.system) / 1e6);
        }
      }
      counts.medianSeconds = median(seconds);
      counts.medianCpuSeconds = median(cpuSeconds);
      table[`${documentType} / ${variant.name}`] = counts;
    }
  }
  return table;
}
