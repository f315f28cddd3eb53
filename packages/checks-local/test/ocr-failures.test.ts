import { createCanvas } from '@napi-rs/canvas';
import { PSM } from 'tesseract.js';
import { describe, expect, it } from 'vitest';
import { ManualReviewRequiredError } from '../src/contract.js';
import { createOcrEngine, ocrModelProblems } from '../src/ocr/index.js';
import { locateInstalledPackage } from '../src/ocr/model-files.js';
import { createRecognizer } from '../src/ocr/recognizer.js';

/** Failing closed: missing models, slow loads and slow reads become manual review with a reason. */
const hideEnglishData = (name: string) => (name === '@tesseract.js-data/eng' ? null : locateInstalledPackage(name));

async function rejection(promise: Promise<unknown>): Promise<ManualReviewRequiredError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ManualReviewRequiredError);
  return error as ManualReviewRequiredError;
}

async function oneLine(text: string): Promise<Buffer> {
  const canvas = createCanvas(700, 80);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, 700, 80);
  context.fillStyle = '#000000';
  context.font = '40px "DejaVu Sans Mono"';
  context.fillText(text, 10, 55);
  return canvas.encode('png');
}

/** Noise on a big page: the legacy engine spends over 30 s on it. */
async function slowImage(): Promise<Buffer> {
  const canvas = createCanvas(3000, 3000);
  const context = canvas.getContext('2d');
  const image = context.createImageData(3000, 3000);
  for (let index = 0; index < image.data.length; index += 4) {
    const value = (index * 2654435761) % 251 > 125 ? 0 : 255;
    image.data[index] = value;
    image.data[index + 1] = value;
    image.data[index + 2] = value;
    image.data[index + 3] = 255;
  }
  context.putImageData(image, 0, 0);
  return canvas.encode('png');
}

describe('model files', () => {
  it('reports nothing missing when the npm model packages are installed', async () => {
    expect(await ocrModelProblems()).toEqual([]);
  });

  it('names a missing model in plain words, without a path, and refuses to start the engine', async () => {
    expect(await ocrModelProblems(hideEnglishData)).toEqual([
      'tesseract English data (@tesseract.js-data/eng 4.0.0) is missing',
      'tesseract English data (@tesseract.js-data/eng 4.0.0_best_int) is missing',
    ]);
    const error = await rejection(createOcrEngine({ loadTimeoutMs: 30_000, inferenceTimeoutMs: 20_000, locatePackage: hideEnglishData }));
    expect(error.reason).toBe('OCR: tesseract English data (@tesseract.js-data/eng 4.0.0) is missing; tesseract English data (@tesseract.js-data/eng 4.0.0_best_int) is missing');
    expect(error.reason).not.toMatch(/node_modules|\/usr\/|\/work\//);
  });
});

describe('time limits', () => {
  it('turns a load over its budget into manual review', async () => {
    const error = await rejection(createOcrEngine({ loadTimeoutMs: 5, inferenceTimeoutMs: 20_000 }));
    expect(error.reason).toMatch(/^OCR: the (legacy|lstm) tesseract engine did not load within 5 ms$/);
  });

  it('turns a read over its budget into manual review, ends that worker and starts a fresh one for the next read', async () => {
    const recognizer = createRecognizer({ kind: 'legacy', loadTimeoutMs: 30_000, inferenceTimeoutMs: 2_500 });
    try {
      const slow = await rejection(recognizer.recognize({ image: await slowImage(), pageSegmentation: PSM.AUTO }));
      expect(slow.reason).toBe('OCR: reading the document took longer than 2500 ms');
      // The stuck worker was ended; a short line (under 0.1 s warm) now reads on a new one.
      const text = await recognizer.recognize({ image: await oneLine('JABER<<NOUR<<<<'), pageSegmentation: PSM.SINGLE_LINE, whitelist: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<' });
      expect(text.trim()).toBe('JABER<<NOUR<<<<');
    } finally {
      await recognizer.close();
    }
  }, 60_000);
});

describe('the whole read', () => {
  it('answers within its budget with a time-out reason, and the engine still reads afterwards', async () => {
    const { generateSyntheticDocument } = await import('../src/synthetic/documents.js');
    const engine = await createOcrEngine({ loadTimeoutMs: 30_000, inferenceTimeoutMs: 20 });
    try {
      const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 7 });
      const started = performance.now();
      const error = await rejection(engine.read(document));
      expect(error.reason).toBe('OCR: reading the document took longer than 20 ms');
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
