/**
 * The trial behind a decision, kept so its figures can be measured again: can Debian's Arabic
 * tesseract model (tesseract-ocr-ara, LSTM) read the Arabic fields of a Syrian ID card's front?
 * On the synthetic cards it finds about three fields in four exactly, and confuses letters that
 * differ by a dot (أحمد read as أخمد); with no check digit to catch that, the Arabic fields are not
 * returned by the OCR answer and stay with the reviewer. The engine does not load this model.
 */
import { access } from 'node:fs/promises';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { createWorker, OEM, PSM } from 'tesseract.js';
import { generateSyntheticDocument, type Degradation } from '../synthetic/documents.js';

export const ARABIC_MODEL_FOLDER = '/usr/share/tesseract-ocr/5/tessdata';

export interface ArabicTrialResult {
  fields: number;
  fieldsReadExactly: number;
  cards: number;
  cardsAllFieldsExact: number;
  medianSeconds: number;
}

const VARIANTS: Degradation[] = [{}, { noise: 12, jpegQuality: 60 }, { scale: 0.5 }, { rotationDegrees: 3 }];

export async function measureArabicReading(seeds: number[]): Promise<ArabicTrialResult> {
  await access(`${ARABIC_MODEL_FOLDER}/ara.traineddata`);
  const worker = await createWorker('ara', OEM.LSTM_ONLY, { langPath: ARABIC_MODEL_FOLDER, gzip: false, cacheMethod: 'none' });
  const result: ArabicTrialResult = { fields: 0, fieldsReadExactly: 0, cards: 0, cardsAllFieldsExact: 0, medianSeconds: 0 };
  const seconds: number[] = [];
  try {
    await worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK, user_defined_dpi: '300', debug_file: '/dev/null' });
    for (const seed of seeds) {
      for (const degradation of VARIANTS) {
        const card = await generateSyntheticDocument({ documentType: 'SyrianNationalId', seed, degradation });
        const image = await loadImage(card.front.bytes);
        // The Arabic fields are printed right of the photo.
        const left = Math.floor(image.width * 0.3);
        const canvas = createCanvas(image.width - left, image.height);
        canvas.getContext('2d').drawImage(image, left, 0, image.width - left, image.height, 0, 0, image.width - left, image.height);
        const started = performance.now();
        const { data } = await worker.recognize(await canvas.encode('png'), { rotateAuto: true });
        seconds.push((performance.now() - started) / 1000);
        const holder = card.holder;
        const expected = [holder.arabicSurname, holder.arabicGivenNames, holder.arabicFatherName, holder.arabicMotherName, holder.arabicPlaceOfBirth];
        const exact = expected.filter((field) => data.text.includes(field)).length;
        result.fields += expected.length;
        result.fieldsReadExactly += exact;
        result.cards += 1;
        if (exact === expected.length) result.cardsAllFieldsExact += 1;
      }
    }
  } finally {
    await worker.terminate();
  }
  seconds.sort((first, second) => first - second);
  result.medianSeconds = Math.round((seconds[Math.floor(seconds.length / 2)] ?? 0) * 1000) / 1000;
  return result;
}
