/**
 * The OCR engine: one legacy and one LSTM tesseract worker, created once and reused (together
 * about 300 MB, so never one per request). A read crops the MRZ band, lets both
 * engines read it at once, merges their readings by check digit, and cross-checks the names
 * against the printed part of the page, which the LSTM engine reads (it is the better one for
 * ordinary text).
 */
import { PSM } from 'tesseract.js';
import { ManualReviewRequiredError, type DocumentType, type EvidenceBytes, type OcrAnswer } from '../contract.js';
import { createArabicCardReader, type ArabicCardReader, type ArabicCardReading } from '../arabic/card-reader.js';
import { NATIONAL_ID_LAYOUT } from '../arabic/card-layout.js';
import { buildAnswer } from './answer.js';
import { decodeDocumentImage, mrzBandOf, preparePage } from './document-image.js';
import { LAYOUTS, MRZ_ALPHABET, mrzLinesIn, type MrzFormat } from './mrz-layout.js';
import { fieldsFrom } from './mrz-fields.js';
import { mergeReadings, withNames } from './mrz-merge.js';
import { ocrModelProblems, type LocatePackage } from './model-files.js';
import { createRecognizer, withDeadline, type Recognizer } from './recognizer.js';
import { crossCheckVisualZone, namesConfirmedByPage } from './visual-zone.js';

export interface OcrEngineOptions {
  loadTimeoutMs: number;
  inferenceTimeoutMs: number;
  /** Where installed packages are (default: node's resolution); tests hide one to see the refusal. */
  locatePackage?: LocatePackage;
}

export interface OcrReadInput {
  documentType: DocumentType;
  front: EvidenceBytes;
  back: EvidenceBytes | null;
}

export interface OcrEngine {
  /** Never resolves with a pass on garbage: throws ManualReviewRequiredError when no usable MRZ. */
  read(input: OcrReadInput): Promise<OcrAnswer>;
  /** The fast path: whether the MRZ band alone reads with a valid check digit (no printed zone, no fields). */
  mrzReadable(input: OcrReadInput): Promise<boolean>;
  close(): Promise<void>;
}

export const OCR_MODEL = { name: 'tesseract.js-mrz', version: 'tesseract.js 7.0.0 + eng 4.0.0 legacy / 4.0.0_best_int LSTM' } as const;

const NO_MRZ = 'OCR: no machine-readable zone could be read from the document image';

/** Passports carry a TD3 MRZ on the data page; Syrian ID cards a TD1 MRZ on the back. */
function mrzSide(input: OcrReadInput): { format: MrzFormat; image: EvidenceBytes } {
  if (input.documentType === 'SyrianPassport') return { format: 'TD3', image: input.front };
  return { format: 'TD1', image: input.back ?? input.front };
}

/** Both engines' readings of the band, merged by check digit; null when neither found the layout's lines. */
async function readMrzBand(recognizers: { legacy: Recognizer; lstm: Recognizer }, mrzBand: Buffer, format: MrzFormat) {
  const layout = LAYOUTS[format];
  // Block mode: automatic page layout drops printed lines on a patterned background, and
  // straightening first is what keeps a photo taken a few degrees off readable.
  const request = { image: mrzBand, whitelist: MRZ_ALPHABET, pageSegmentation: PSM.SINGLE_BLOCK, straighten: true };
  const [legacyText, lstmText] = await Promise.all([recognizers.legacy.recognize(request), recognizers.lstm.recognize(request)]);
  return mergeReadings(
    [
      { engine: 'legacy', lines: mrzLinesIn(legacyText, layout) },
      { engine: 'lstm', lines: mrzLinesIn(lstmText, layout) },
    ],
    layout,
  );
}

/**
 * The fast path: the band through the LSTM engine alone, which reads it in about half the legacy
 * engine's time (0.3 s against 0.7 s on a page without an MRZ) and gets the check-digit line of
 * the synthetic set right; the full read still merges both. An image that does not decode has no
 * readable MRZ either: false, not an error.
 */
export async function mrzBandReadable(recognizers: { lstm: Recognizer }, input: OcrReadInput): Promise<boolean> {
  const { format, image } = mrzSide(input);
  let decoded: Awaited<ReturnType<typeof decodeDocumentImage>>;
  try {
    decoded = await decodeDocumentImage(image.bytes);
  } catch (error) {
    if (error instanceof ManualReviewRequiredError) return false;
    throw error;
  }
  const layout = LAYOUTS[format];
  const text = await recognizers.lstm.recognize({ image: mrzBandOf(decoded, format), whitelist: MRZ_ALPHABET, pageSegmentation: PSM.SINGLE_BLOCK, straighten: true });
  const merged = mergeReadings([{ engine: 'lstm', lines: mrzLinesIn(text, layout) }], layout);
  return merged !== null && Object.values(merged.checkDigits).some(Boolean);
}

/**
 * The Arabic front of a national ID. A front the reader cannot flatten or read leaves every
 * Arabic field for the reviewer rather than failing the MRZ answer, which stands on its own.
 */
async function readArabicFront(reader: (() => Promise<ArabicCardReader>) | undefined, input: OcrReadInput): Promise<ArabicCardReading | null> {
  if (reader === undefined || input.documentType !== 'SyrianNationalId') return null;
  try {
    return await (await reader()).readNationalId(input.front.bytes);
  } catch {
    return { fields: {}, fieldsToConfirm: NATIONAL_ID_LAYOUT.map((region) => region.field) };
  }
}

export async function readDocument(recognizers: { legacy: Recognizer; lstm: Recognizer; arabic?: () => Promise<ArabicCardReader> }, input: OcrReadInput, today: Date): Promise<OcrAnswer> {
  const arabic = readArabicFront(recognizers.arabic, input);
  const answer = await readMrzDocument(recognizers, input, today);
  const reading = await arabic;
  if (reading === null) return answer;
  // The MRZ's Latin names and numbers keep their keys; the Arabic fields have their own (…Ar, nationalNumber).
  return { ...answer, fields: { ...reading.fields, ...answer.fields }, fieldsToConfirm: reading.fieldsToConfirm };
}

async function readMrzDocument(recognizers: { legacy: Recognizer; lstm: Recognizer }, input: OcrReadInput, today: Date): Promise<OcrAnswer> {
  const { format, image } = mrzSide(input);
  const layout = LAYOUTS[format];
  const page = preparePage(await decodeDocumentImage(image.bytes), format);
  const [merged, visualText] = await Promise.all([
    readMrzBand(recognizers, page.mrzBand, format),
    recognizers.lstm.recognize({ image: page.visualZone, pageSegmentation: PSM.SINGLE_BLOCK, straighten: true }),
  ]);
  if (merged === null || !Object.values(merged.checkDigits).some(Boolean)) throw new ManualReviewRequiredError(NO_MRZ);
  // Names have no check digit: prefer the engines' reading the printed page confirms word for word.
  let chosen = merged;
  let visual = crossCheckVisualZone(visualText, fieldsFrom(merged.lines, layout, today));
  const rebuilt = merged.nameReadings.map((reading, index) => namesConfirmedByPage(reading, merged.nameReadings.filter((_other, otherIndex) => otherIndex !== index), visualText));
  for (const names of [...merged.nameCandidates, ...rebuilt.filter((names): names is string => names !== null)]) {
    if (visual.namesConfirmed) break;
    const candidate = withNames(merged, layout, names);
    const check = crossCheckVisualZone(visualText, fieldsFrom(candidate.lines, layout, today));
    if (check.namesConfirmed) {
      chosen = candidate;
      visual = check;
    }
  }
  return buildAnswer({ merged: chosen, layout, visual, model: OCR_MODEL, today });
}

/** Loads both workers (within options.loadTimeoutMs each); a missing model file fails first, with no worker started. */
export async function createOcrEngine(options: OcrEngineOptions): Promise<OcrEngine> {
  const problems = await ocrModelProblems(options.locatePackage);
  if (problems.length > 0) throw new ManualReviewRequiredError(`OCR: ${problems.join('; ')}`);
  const recognizers = {
    legacy: createRecognizer({ kind: 'legacy', loadTimeoutMs: options.loadTimeoutMs, inferenceTimeoutMs: options.inferenceTimeoutMs }),
    lstm: createRecognizer({ kind: 'lstm', loadTimeoutMs: options.loadTimeoutMs, inferenceTimeoutMs: options.inferenceTimeoutMs }),
  };
  try {
    await Promise.all([recognizers.legacy.ready(), recognizers.lstm.ready()]);
  } catch (error) {
    await Promise.all([recognizers.legacy.close(), recognizers.lstm.close()]);
    throw error;
  }
  // The Arabic workers (three, ~100 MB) load on the first national ID, not for passports.
  let arabicReader: Promise<ArabicCardReader> | null = null;
  const arabic = () => {
    arabicReader ??= createArabicCardReader().catch((error: unknown) => {
      arabicReader = null;
      throw error;
    });
    return arabicReader;
  };
  return {
    // Each worker job has this budget too (and a stuck worker is ended by it); this one bounds the
    // whole read, whose LSTM jobs run one after the other.
    read: (input) => withDeadline(readDocument({ ...recognizers, arabic }, input, new Date()), options.inferenceTimeoutMs, `OCR: reading the document took longer than ${options.inferenceTimeoutMs} ms`, () => {}),
    mrzReadable: (input) => withDeadline(mrzBandReadable(recognizers, input), options.inferenceTimeoutMs, `OCR: reading the MRZ took longer than ${options.inferenceTimeoutMs} ms`, () => {}),
    async close() {
      const reader = arabicReader === null ? null : await arabicReader.catch(() => null);
      await Promise.all([recognizers.legacy.close(), recognizers.lstm.close(), reader?.close()]);
    },
  };
}
