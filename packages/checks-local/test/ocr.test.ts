import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualReviewRequiredError, type OcrAnswer } from '../src/contract.js';
import { createOcrEngine, type OcrEngine } from '../src/ocr/index.js';
import { isAcceptedRead, sameFields } from '../src/ocr/accuracy.js';
import { generateSyntheticDocument, type SyntheticDocument, type SyntheticDocumentOptions } from '../src/synthetic/documents.js';
import { sampleCase } from '../src/synthetic/sample-case.js';

/**
 * The real engine (both tesseract workers, the npm model files) on synthetic documents drawn at
 * test time, with the network denied (vitest.config.ts). One engine serves the whole file, as
 * one serves the whole checks process.
 */
let engine: OcrEngine;

beforeAll(async () => {
  engine = await createOcrEngine({ loadTimeoutMs: 30_000, inferenceTimeoutMs: 20_000 });
}, 60_000);

afterAll(async () => {
  await engine?.close();
});

async function read(document: Pick<SyntheticDocument, 'documentType' | 'front' | 'back'>): Promise<OcrAnswer | ManualReviewRequiredError> {
  try {
    return await engine.read(document);
  } catch (error) {
    if (error instanceof ManualReviewRequiredError) return error;
    throw error;
  }
}

async function readSynthetic(options: SyntheticDocumentOptions) {
  const document = await generateSyntheticDocument(options);
  return { document, outcome: await read(document) };
}

describe('clean synthetic documents', () => {
  it.each([
    ['SyrianPassport', 11],
    ['SyrianPassport', 12],
    ['SyrianNationalId', 11],
    ['SyrianNationalId', 12],
  ] as const)('%s (seed %i) reads valid with exactly the expected fields', async (documentType, seed) => {
    const { document, outcome } = await readSynthetic({ documentType, seed });
    expect(outcome).not.toBeInstanceOf(ManualReviewRequiredError);
    const answer = outcome as OcrAnswer;
    expect(answer.fields).toEqual(document.expectedFields);
    expect(answer.mrzRawText).toBe(document.mrzLines.join('\n'));
    expect(answer.confidenceScore).toBeGreaterThanOrEqual(0.9);
    expect(isAcceptedRead(answer)).toBe(true);
    expect(answer.hasManipulationIndicators).toBe(false);
    expect(answer.modelName).toBe('tesseract.js-mrz');
  });
});

describe('degraded photos: valid and exact, or not valid at all', () => {
  const variants = [
    { name: 'turned 2°', degradation: { rotationDegrees: 2 } },
    { name: 'turned 5°', degradation: { rotationDegrees: -5 } },
    { name: 'noise and JPEG 60', degradation: { noise: 14, jpegQuality: 60 } },
    { name: 'half resolution', degradation: { scale: 0.5 } },
  ];
  for (const documentType of ['SyrianPassport', 'SyrianNationalId'] as const) {
    it.each(variants)(`${documentType}, $name`, async ({ degradation }) => {
      const { document, outcome } = await readSynthetic({ documentType, seed: 21, degradation });
      if (outcome instanceof ManualReviewRequiredError) {
        expect(outcome.reason).toMatch(/^OCR: /);
        return;
      }
      if (isAcceptedRead(outcome)) expect(outcome.fields).toEqual(document.expectedFields);
      else expect(sameFields(outcome.fields, document.expectedFields) && outcome.confidenceScore >= 0.8).toBe(false);
    });
  }
});

describe('documents that must not read valid', () => {
  it.each(['SyrianPassport', 'SyrianNationalId'] as const)('%s with a wrong document-number check digit printed', async (documentType) => {
    const { outcome } = await readSynthetic({ documentType, seed: 31, tamper: 'documentNumberCheckDigit' });
    if (outcome instanceof ManualReviewRequiredError) return;
    expect(isAcceptedRead(outcome)).toBe(false);
    expect(outcome.confidenceScore).toBeLessThan(0.8);
  });

  it('a passport whose printed date of birth contradicts its MRZ is flagged', async () => {
    const { document, outcome } = await readSynthetic({ documentType: 'SyrianPassport', seed: 32, printed: { dateOfBirth: '1977-01-15' } });
    expect(outcome).not.toBeInstanceOf(ManualReviewRequiredError);
    const answer = outcome as OcrAnswer;
    expect(answer.fields.dateOfBirth).toBe(document.expectedFields.dateOfBirth);
    expect(answer.hasManipulationIndicators).toBe(true);
  });

  it('a passport whose printed names differ from its MRZ is valid by its digits but left to review', async () => {
    const { outcome } = await readSynthetic({ documentType: 'SyrianPassport', seed: 33, printed: { surname: 'MAKHLOUF', givenNames: 'ZEINA' } });
    expect(outcome).not.toBeInstanceOf(ManualReviewRequiredError);
    expect((outcome as OcrAnswer).confidenceScore).toBeLessThan(0.8);
  });
});

describe('inputs with no usable MRZ', () => {
  it('a blank page goes to manual review with a plain reason', async () => {
    const canvas = createCanvas(1250, 880);
    const context = canvas.getContext('2d');
    context.fillStyle = '#f3f0e4';
    context.fillRect(0, 0, 1250, 880);
    const outcome = await read({ documentType: 'SyrianPassport', front: { contentType: 'image/png', bytes: await canvas.encode('png') }, back: null });
    expect(outcome).toBeInstanceOf(ManualReviewRequiredError);
    expect((outcome as ManualReviewRequiredError).reason).toBe('OCR: no machine-readable zone could be read from the document image');
  });

  it('bytes that are not a picture go to manual review, not to an error', async () => {
    const outcome = await read({ documentType: 'SyrianPassport', front: { contentType: 'image/jpeg', bytes: Buffer.from('not a picture at all') }, back: null });
    expect(outcome).toBeInstanceOf(ManualReviewRequiredError);
    expect((outcome as ManualReviewRequiredError).reason).toMatch(/could not be read as a JPEG, PNG or WebP picture/);
  });

  it('an ID card sent without its back is read from the front, which has no MRZ', async () => {
    const document = await generateSyntheticDocument({ documentType: 'SyrianNationalId', seed: 34 });
    const outcome = await read({ ...document, back: null });
    expect(outcome).toBeInstanceOf(ManualReviewRequiredError);
  });
});

describe('input formats', () => {
  it('reads a WebP upload as well as PNG and JPEG', async () => {
    const { loadImage } = await import('@napi-rs/canvas');
    const document = await generateSyntheticDocument({ documentType: 'SyrianNationalId', seed: 12 });
    const image = await loadImage(document.back!.bytes);
    const canvas = createCanvas(image.width, image.height);
    canvas.getContext('2d').drawImage(image, 0, 0);
    const outcome = await read({ ...document, back: { contentType: 'image/webp', bytes: await canvas.encode('webp', 90) } });
    expect(outcome).not.toBeInstanceOf(ManualReviewRequiredError);
    expect((outcome as OcrAnswer).fields).toEqual(document.expectedFields);
  });
});

describe('the sample case of `pnpm --filter @svc/checks-local samples`', () => {
  it('is a JPEG passport valid on the day it is made, read valid and exact, with a JPEG selfie and an MP4 video', async () => {
    const { files, expectedFields } = await sampleCase(new Date('2026-11-25T12:00:00Z'));
    expect(Object.keys(files)).toEqual(['passport.jpg', 'selfie.jpg', 'selfie-video.mp4']);
    for (const name of ['passport.jpg', 'selfie.jpg']) expect(files[name]!.subarray(0, 3), name).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(files['selfie-video.mp4']!.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(expectedFields.expiryDate).toBe('2031-11-25');
    const outcome = await read({ documentType: 'SyrianPassport', front: { contentType: 'image/jpeg', bytes: files['passport.jpg']! }, back: null });
    expect(outcome).not.toBeInstanceOf(ManualReviewRequiredError);
    expect((outcome as OcrAnswer).fields).toEqual(expectedFields);
    expect(isAcceptedRead(outcome as OcrAnswer)).toBe(true);
  });
});
