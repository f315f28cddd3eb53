import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cropGray, type GrayImage } from '../src/arabic/card-geometry.js';
import { VALUE_SIZE } from '../src/arabic/card-layout.js';
import { createArabicCardReader, type ArabicCardReader } from '../src/arabic/card-reader.js';
import { agreedValue, DIGIT_FONTS, digitTemplateSets, readDigits, readDigitsEveryWay } from '../src/arabic/digit-reader.js';
import { parseNationalNumber } from '../src/arabic/national-number.js';
import { generateArabicCard, toArabicIndic } from '../src/synthetic/arabic/index.js';

function printedLine(text: string, family: string): GrayImage {
  const canvas = createCanvas(520, 56);
  const context = canvas.getContext('2d');
  context.fillStyle = '#e8f1e6';
  context.fillRect(0, 0, 520, 56);
  context.fillStyle = '#111';
  context.font = `${VALUE_SIZE}px "${family}"`;
  context.fillText(text, 20, 42);
  const data = context.getImageData(0, 0, 520, 56);
  const pixels = new Uint8ClampedArray(520 * 56);
  for (let index = 0; index < pixels.length; index += 1) pixels[index] = data.data[index * 4]!;
  return cropGray({ width: 520, height: 56, pixels }, { x: 0, y: 0, width: 520, height: 56 });
}

describe('Arabic-Indic digit reader', () => {
  const sets = digitTemplateSets(VALUE_SIZE);
  const nationalNumber = (image: GrayImage) => agreedValue(readDigitsEveryWay(image, sets, VALUE_SIZE).map((reading) => (reading.text === null ? null : parseNationalNumber(reading.text))), 2);
  it.each(DIGIT_FONTS.map((font) => font.family))('reads an Arabic-Indic national number printed in %s', (family) => {
    const line = printedLine(toArabicIndic('13442572189'), family);
    expect(readDigits(line, sets[0]!, VALUE_SIZE).arabicIndic).toBe(true);
    expect(nationalNumber(line)).toBe('13442572189');
  });
  it.each(DIGIT_FONTS.filter((font) => font.family !== 'AlArabiya').map((font) => font.family))('reads the small ٠ printed in %s', (family) => {
    expect(nationalNumber(printedLine(toArabicIndic('01002572170'), family))).toBe('01002572170');
  });
  it("never returns a wrong number for AlArabiya's ٠, which is barely three pixels at card size", () => {
    expect([null, '01002572170']).toContain(nationalNumber(printedLine(toArabicIndic('01002572170'), 'AlArabiya')));
  });
  it('tells Western digits from Arabic-Indic ones', () => {
    expect(readDigits(printedLine('02345678901', 'Noto Naskh Arabic'), sets[0]!, VALUE_SIZE).arabicIndic).toBe(false);
  });
  it('agrees on a value read at least twice that outvotes any other four to one', () => {
    expect(agreedValue(['01002572170', null, '01002572170'], 2)).toBe('01002572170');
    expect(agreedValue(['01002572170', '01002572171', '01002572170'], 2)).toBeNull();
    expect(agreedValue([...Array<string>(4).fill('01002572170'), '01002572171'], 2)).toBe('01002572170');
    expect(agreedValue([...Array<string>(3).fill('01002572170'), '01002572171'], 2)).toBeNull();
    expect(agreedValue(['01002572170', null, null], 2)).toBeNull();
    expect(agreedValue([], 2)).toBeNull();
  });
});

describe('Syrian national ID reader', () => {
  let reader: ArabicCardReader;
  beforeAll(async () => {
    reader = await createArabicCardReader();
  });
  afterAll(async () => {
    await reader.close();
  });

  it.each([
    [1, 'clean'],
    [5, 'clean'],
    [7, 'degraded'],
  ] as const)('card %i (%s): every field it returns is the printed one, and every other is named for the reviewer', async (seed, condition) => {
    const card = await generateArabicCard(seed, condition);
    const reading = await reader.readNationalId(card.image);
    for (const [field, value] of Object.entries(reading.fields)) expect(value, field).toBe(card.truth[field as keyof typeof card.truth]);
    expect([...Object.keys(reading.fields), ...reading.fieldsToConfirm].sort()).toEqual(Object.keys(card.truth).sort());
    expect(Object.keys(reading.fields).length).toBeGreaterThanOrEqual(2);
  });

  it('reads the national number in either digit set, flat or photographed', async () => {
    for (const [seed, condition] of [[1, 'clean'], [5, 'clean'], [7, 'degraded']] as const) {
      const card = await generateArabicCard(seed, condition);
      expect((await reader.readNationalId(card.image)).fields.nationalNumber, `card ${seed}`).toBe(card.holder.nationalNumber);
    }
  });

  it('returns no field for an image that is not a card', async () => {
    const canvas = createCanvas(800, 500);
    const context = canvas.getContext('2d');
    context.fillStyle = '#777';
    context.fillRect(0, 0, 800, 500);
    const reading = await reader.readNationalId(await canvas.encode('png'));
    expect(reading.fields).toEqual({});
    expect(reading.fieldsToConfirm).toHaveLength(8);
  });
});
