/**
 * The Syrian national ID reader: warp the card flat, then read each field from its template box
 * with the readings that serve it, and keep a field only when independent readings agree.
 * - Arabic words (names, birth place, civil registry): Debian's `ara` model on a 2× crop and on
 *   the plain crop, and the `Arabic` script model on the plain crop; all three equal letter for
 *   letter (agreementForm) → accepted.
 * - Digits (date of birth, national number): the template digit reader tells the digit set;
 *   Arabic-Indic lines are read by it at two ink thresholds, Western lines by tesseract `eng` at
 *   two scales, and the two readings must agree; the national number must also have 11 digits
 *   and a governorate prefix, the date must be a real date.
 * A field left out is named in `fieldsToConfirm`, for the reviewer.
 */
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { cropGray, cropPng, flattenCard, type GrayImage } from './card-geometry.js';
import { NATIONAL_ID_LAYOUT, VALUE_SIZE, type FieldRegion, type NationalIdField } from './card-layout.js';
import { digitTemplates, readDigits, type DigitTemplate } from './digit-reader.js';
import { parseNationalNumber } from './national-number.js';
import { agreementForm, displayForm, isArabicWords, westernDigits } from './text.js';

/** Debian's tesseract-ocr-ara, tesseract-ocr-script-arab and tesseract-ocr-eng install here. */
export const DEBIAN_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';

export interface ArabicCardReading {
  fields: Partial<Record<NationalIdField, string>>;
  fieldsToConfirm: NationalIdField[];
}

export interface ArabicCardReader {
  readNationalId(image: Buffer): Promise<ArabicCardReading>;
  close(): Promise<void>;
}

async function lineWorker(model: string, whitelist?: string): Promise<Worker> {
  const worker = await createWorker(model, OEM.LSTM_ONLY, { langPath: DEBIAN_TESSDATA, gzip: false, cacheMethod: 'none' });
  await worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE, user_defined_dpi: '300', debug_file: '/dev/null', ...(whitelist ? { tessedit_char_whitelist: whitelist } : {}) });
  return worker;
}

async function text(worker: Worker, image: Buffer): Promise<string> {
  const { data } = await worker.recognize(image);
  return data.text.trim();
}

/** Arabic letters of a reading, as stored (no digits, no stray marks). */
function words(reading: string): string {
  return displayForm(reading.replace(/[^\u0621-\u064A\u0671-\u06D3\u0640 ]/gu, ' '));
}

function isoDate(digits: string): string | null {
  const only = digits.replace(/\D/g, '');
  if (only.length !== 8) return null;
  const [day, month, year] = [Number(only.slice(0, 2)), Number(only.slice(2, 4)), Number(only.slice(4))];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1900 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || date.getTime() > Date.now()) return null;
  return `${only.slice(4)}-${only.slice(2, 4)}-${only.slice(0, 2)}`;
}

export async function createArabicCardReader(): Promise<ArabicCardReader> {
  const [ara, script, eng] = await Promise.all([lineWorker('ara'), lineWorker('Arabic'), lineWorker('eng', '0123456789/')]);
  const templates: DigitTemplate[] = digitTemplates(VALUE_SIZE);

  /** The three readings of an Arabic field: `ara` on a 2× crop and on the plain crop, `Arabic` on the plain crop. */
  async function threeReadings(card: GrayImage, region: FieldRegion): Promise<string[]> {
    const plain = cropPng(card, region.box);
    return Promise.all([text(ara, cropPng(card, region.box, 2)), text(ara, plain), text(script, plain)]);
  }

  async function readWords(card: GrayImage, region: FieldRegion): Promise<string | null> {
    const readings = (await threeReadings(card, region)).map((reading) => agreementForm(words(reading)));
    // Every model reads a final ي as ى on these fonts (العلي as العلى), so a word ending in either is the reviewer's.
    const finalYa = /[يى](\s|$)/u.test(readings[0]!);
    return isArabicWords(readings[0]!) && !finalYa && readings.every((reading) => reading === readings[0]) ? readings[0]! : null;
  }

  async function readRegistry(card: GrayImage, region: FieldRegion): Promise<string | null> {
    const readings = (await threeReadings(card, region)).map((reading) => agreementForm(reading));
    return readings[0]!.length > 1 && readings.every((reading) => reading === readings[0]) ? readings[0]! : null;
  }

  async function readDigitLine(card: GrayImage, region: FieldRegion): Promise<string | null> {
    const crop = cropGray(card, region.box);
    const first = readDigits(crop, templates, VALUE_SIZE);
    if (first.arabicIndic) {
      const second = readDigits(crop, templates, VALUE_SIZE, 20);
      return first.text !== null && first.text === second.text ? first.text : null;
    }
    // Western digits: tesseract's eng reads them well; two scales must agree.
    const [plain, doubled] = await Promise.all([text(eng, cropPng(card, region.box)), text(eng, cropPng(card, region.box, 2))]);
    const reading = westernDigits(plain).replace(/[^0-9/]/g, '');
    return reading.length > 0 && reading === westernDigits(doubled).replace(/[^0-9/]/g, '') ? reading : null;
  }

  return {
    async readNationalId(image) {
      const card = await flattenCard(image);
      const fields: Partial<Record<NationalIdField, string>> = {};
      for (const region of NATIONAL_ID_LAYOUT) {
        let value: string | null;
        if (region.field === 'nationalNumber') {
          const digits = await readDigitLine(card, region);
          value = digits === null ? null : parseNationalNumber(digits);
        } else if (region.field === 'dateOfBirth') {
          const digits = await readDigitLine(card, region);
          value = digits === null ? null : isoDate(digits);
        } else if (region.field === 'civilRegistryAr') {
          value = await readRegistry(card, region);
        } else {
          value = await readWords(card, region);
        }
        if (value !== null) fields[region.field] = value;
      }
      return { fields, fieldsToConfirm: NATIONAL_ID_LAYOUT.map((region) => region.field).filter((field) => fields[field] === undefined) };
    },
    async close() {
      await Promise.all([ara.terminate(), script.terminate(), eng.terminate()]);
    },
  };
}
