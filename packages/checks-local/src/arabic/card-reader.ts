/**
 * The Syrian national ID reader: warp the card flat, then read each field from its template box
 * with the readings that serve it, and keep a field only when independent readings agree.
 * - Arabic words (names, birth place, civil registry): the field's ink cut tight (inkCrop), read
 *   six ways: Debian's `ara` model and the `Arabic` script model, each on the black-and-white cut,
 *   the gray cut and the black-and-white cut at 2×; field-vote.ts decides, with the lexicon of
 *   Syrian names and places (name-lexicon.ts).
 * - Digits (date of birth, national number): the template digit reader tells the digit set;
 *   Arabic-Indic lines are read by three template sets at four ink thresholds each, Western lines by
 *   tesseract `eng` on the box and on the ink cut, each at two scales; a value needs agreeing
 *   readings and no rival, the national number 11 digits and a governorate prefix, the date a real date.
 * A field left out is named in `fieldsToConfirm`, for the reviewer.
 */
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { cropGray, cropPng, flattenCard, imagePng, inkCrop, type GrayImage } from './card-geometry.js';
import { NATIONAL_ID_LAYOUT, VALUE_SIZE, type FieldRegion, type NationalIdField } from './card-layout.js';
import { agreedValue, digitTemplateSets, readDigitsEveryWay, type DigitTemplate } from './digit-reader.js';
import { parseNationalNumber } from './national-number.js';
import { createLexicon, decideLine, decideWords, type FieldReading } from './field-vote.js';
import { NAME_LEXICON, PLACE_LEXICON } from './name-lexicon.js';
import { westernDigits } from './text.js';

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

/** `ara` reads a line best in tesseract's single-line mode; the script model in raw-line mode, which drops the stray alef `ara` adds there. */
async function lineWorker(model: string, mode: PSM, whitelist?: string): Promise<Worker> {
  const worker = await createWorker(model, OEM.LSTM_ONLY, { langPath: DEBIAN_TESSDATA, gzip: false, cacheMethod: 'none' });
  await worker.setParameters({ tessedit_pageseg_mode: mode, user_defined_dpi: '300', debug_file: '/dev/null', ...(whitelist ? { tessedit_char_whitelist: whitelist } : {}) });
  return worker;
}

async function text(worker: Worker, image: Buffer): Promise<string> {
  const { data } = await worker.recognize(image);
  return data.text.trim();
}

/** A printed dd/mm/yyyy date; both slashes must be read, since a digit touching a slash makes one blob that can pass for a digit. */
function isoDate(digits: string): string | null {
  if (!/^\d{2}\/\d{2}\/\d{4}$/.test(digits)) return null;
  const only = digits.replace(/\D/g, '');
  const [day, month, year] = [Number(only.slice(0, 2)), Number(only.slice(2, 4)), Number(only.slice(4))];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1900 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || date.getTime() > Date.now()) return null;
  return `${only.slice(4)}-${only.slice(2, 4)}-${only.slice(0, 2)}`;
}

/** Readings a digit value needs: two that agree, outvoting any other four to one (measured on 320 lines: no wrong value). */
const AGREEING_READINGS = 2;

export async function createArabicCardReader(): Promise<ArabicCardReader> {
  const [ara, araWord, script, eng] = await Promise.all([
    lineWorker('ara', PSM.SINGLE_LINE),
    lineWorker('ara', PSM.SINGLE_WORD),
    lineWorker('Arabic', PSM.RAW_LINE),
    lineWorker('eng', PSM.SINGLE_LINE, '0123456789/'),
  ]);
  const templateSets: DigitTemplate[][] = digitTemplateSets(VALUE_SIZE);
  const names = createLexicon(NAME_LEXICON);
  const places = createLexicon(PLACE_LEXICON);

  /**
   * Six readings of an Arabic field: `ara` as a line on the black-and-white and the gray ink cut
   * and as a word on the black-and-white one (as a line it returns nothing for some single
   * words); the script model on the black-and-white cut, the gray one and the black-and-white at 2×.
   */
  async function sixReadings(card: GrayImage, region: FieldRegion): Promise<FieldReading[]> {
    const binary = inkCrop(card, region.box, true);
    const gray = inkCrop(card, region.box, false);
    if (binary === null || gray === null) return [];
    const [binaryPng, grayPng] = [imagePng(binary), imagePng(gray)];
    const readings = await Promise.all([
      text(ara, binaryPng), text(ara, grayPng), text(araWord, binaryPng),
      text(script, binaryPng), text(script, grayPng), text(script, imagePng(binary, 2)),
    ]);
    return readings.map((reading, index) => ({ model: index < 3 ? ('ara' as const) : ('Arabic' as const), text: reading, phantomAlef: index >= 2 }));
  }

  /** Every reading of a digit line, as the field's parser accepts it (null where it does not), and whether the line is Arabic-Indic. */
  async function digitLineReadings(card: GrayImage, region: FieldRegion, parse: (digits: string) => string | null): Promise<{ arabicIndic: boolean; values: (string | null)[] }> {
    const crop = cropGray(card, region.box);
    const templateReadings = readDigitsEveryWay(crop, templateSets, VALUE_SIZE);
    if (templateReadings.filter((reading) => reading.arabicIndic).length * 2 > templateReadings.length) {
      return { arabicIndic: true, values: templateReadings.map((reading) => (reading.text === null ? null : parse(reading.text))) };
    }
    // Western digits: tesseract's eng reads them well, on the box and on the ink cut, at two scales.
    const ink = inkCrop(card, region.box, true);
    const images = [cropPng(card, region.box), cropPng(card, region.box, 2), ...(ink === null ? [] : [imagePng(ink), imagePng(ink, 2)])];
    const readings = await Promise.all(images.map((image) => text(eng, image)));
    const values = readings.map((reading) => {
      const digits = westernDigits(reading).replace(/[^0-9/]/g, '');
      return digits.length === 0 ? null : parse(digits);
    });
    return { arabicIndic: false, values };
  }

  return {
    async readNationalId(image) {
      const card = await flattenCard(image);
      const fields: Partial<Record<NationalIdField, string>> = {};
      // The national number is read first: a card prints all its numbers in one digit set, and the
      // models read an Arabic-Indic registry number as Western digits (٦ as 1).
      const number = await digitLineReadings(card, NATIONAL_ID_LAYOUT.find((region) => region.field === 'nationalNumber')!, parseNationalNumber);
      for (const region of NATIONAL_ID_LAYOUT) {
        let value: string | null;
        if (region.field === 'nationalNumber') value = agreedValue(number.values, AGREEING_READINGS);
        else if (region.field === 'dateOfBirth') value = agreedValue((await digitLineReadings(card, region, isoDate)).values, AGREEING_READINGS);
        else if (region.field === 'civilRegistryAr') value = number.arabicIndic ? null : decideLine(await sixReadings(card, region), places);
        else value = decideWords(await sixReadings(card, region), region.field === 'birthPlaceAr' ? places : names);
        if (value !== null) fields[region.field] = value;
      }
      return { fields, fieldsToConfirm: NATIONAL_ID_LAYOUT.map((region) => region.field).filter((field) => fields[field] === undefined) };
    },
    async close() {
      await Promise.all([ara.terminate(), araWord.terminate(), script.terminate(), eng.terminate()]);
    },
  };
}
