import { createCanvas, loadImage } from '@napi-rs/canvas';
import { parse } from 'mrz';
import { describe, expect, it } from 'vitest';
import { generateSyntheticDocument } from '../src/synthetic/documents.js';

const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

async function pixelAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  return [...context.getImageData(x, y, 1, 1).data];
}

describe('synthetic documents', () => {
  it('prints a passport TD3 MRZ that the mrz package reads back as the expected fields', async () => {
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 5 });
    const result = parse(document.mrzLines);
    expect(result.format).toBe('TD3');
    expect(result.valid).toBe(true);
    expect(result.fields.documentNumber).toBe(document.expectedFields.documentNumber);
    expect(result.fields.lastName).toBe(document.expectedFields.surname);
    expect(result.fields.nationality).toBe('SYR');
    expect(document.back).toBeNull();
    expect(document.front.contentType).toBe('image/png');
    expect(document.front.bytes.subarray(0, 4)).toEqual(PNG);
    expect(document.expectedFields.dateOfBirth).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('prints an ID card with its TD1 MRZ on the back and the Arabic fields on the front', async () => {
    const document = await generateSyntheticDocument({ documentType: 'SyrianNationalId', seed: 5 });
    const result = parse(document.mrzLines);
    expect(result.format).toBe('TD1');
    expect(result.valid).toBe(true);
    expect(result.fields.optional1).toBe(document.expectedFields.personalNumber);
    expect(document.back).not.toBeNull();
    expect(document.holder.arabicSurname).toMatch(/[\u0600-\u06FF]/);
  });

  it('is the same document for the same seed, and another person for another seed', async () => {
    const [first, again, other] = await Promise.all([5, 5, 6].map((seed) => generateSyntheticDocument({ documentType: 'SyrianPassport', seed })));
    expect(again!.front.bytes.equals(first!.front.bytes)).toBe(true);
    expect(other!.mrzLines).not.toEqual(first!.mrzLines);
  });

  it('prints a wrong check digit when asked, which the mrz package rejects', async () => {
    for (const documentType of ['SyrianPassport', 'SyrianNationalId'] as const) {
      const document = await generateSyntheticDocument({ documentType, seed: 5, tamper: 'documentNumberCheckDigit' });
      const result = parse(document.mrzLines);
      expect(result.valid).toBe(false);
      expect(result.details.find((detail) => detail.field === 'documentNumberCheckDigit')?.valid).toBe(false);
    }
  });

  it('photographs badly on request: turned, smaller, noisy, JPEG', async () => {
    const clean = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 5 });
    const degraded = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 5, degradation: { rotationDegrees: 5, scale: 0.5, noise: 12, jpegQuality: 60 } });
    expect(degraded.front.contentType).toBe('image/jpeg');
    expect(degraded.front.bytes.subarray(0, 3)).toEqual(JPEG);
    const [cleanImage, degradedImage] = await Promise.all([loadImage(clean.front.bytes), loadImage(degraded.front.bytes)]);
    // Turning 5° grows the bounding box before halving it.
    expect(degradedImage.width).toBeGreaterThan(cleanImage.width / 2);
    expect(degradedImage.width).toBeLessThan(cleanImage.width * 0.6);
    expect(degraded.mrzLines).toEqual(clean.mrzLines);
  });

  it('prints a given portrait where the passport photo goes', async () => {
    const portrait = createCanvas(300, 400);
    const context = portrait.getContext('2d');
    context.fillStyle = '#d02020';
    context.fillRect(0, 0, 300, 400);
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 5, portrait: await portrait.encode('png') });
    const [red, green, blue] = await pixelAt(document.front.bytes, 225, 365);
    expect(red).toBeGreaterThan(180);
    expect(green).toBeLessThan(60);
    expect(blue).toBeLessThan(60);
    const plain = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 5 });
    expect((await pixelAt(plain.front.bytes, 225, 365))[0]).toBeLessThan(200);
  });

  it('can print a visual zone that contradicts the MRZ, keeping the MRZ and expected fields the holder’s', async () => {
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 5, printed: { dateOfBirth: '1977-01-15' } });
    expect(document.expectedFields.dateOfBirth).not.toBe('1977-01-15');
    expect(parse(document.mrzLines).valid).toBe(true);
  });
});
