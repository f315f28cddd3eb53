import { afterAll, describe, expect, it } from 'vitest';
import { createLocalChecks } from '../src/index.js';
import { generateArabicCard } from '../src/synthetic/arabic/index.js';
import { generateSyntheticDocument } from '../src/synthetic/index.js';

// The OCR check of a national ID reads the Arabic front beside the MRZ on the back.
describe('local OCR of a Syrian national ID', () => {
  const checks = createLocalChecks({ concurrency: 1, inferenceTimeoutMs: 60_000 });
  afterAll(() => checks.close());

  it('adds the Arabic fields it is sure of and names the others for a person', async () => {
    const card = await generateArabicCard(3, 'clean');
    const document = await generateSyntheticDocument({ documentType: 'SyrianNationalId', seed: 3 });
    const answer = await checks.ocr({ documentType: 'SyrianNationalId', front: { contentType: 'image/png', bytes: card.image }, back: document.back });
    const arabicKeys = Object.keys(card.truth);
    const read = arabicKeys.filter((key) => answer.fields[key] !== undefined);
    // The back here is another invented person; where both sides give a field the MRZ's check digit wins.
    for (const key of read.filter((key) => key !== 'dateOfBirth')) expect(answer.fields[key], key).toBe(card.truth[key as keyof typeof card.truth]);
    expect([...read, ...(answer.fieldsToConfirm ?? [])].sort()).toEqual([...arabicKeys].sort());
    expect(read.length).toBeGreaterThan(0);
    expect(answer.mrzRawText).not.toBeNull();
  }, 120_000);

  it('leaves a passport without Arabic fields to confirm', async () => {
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 3 });
    const answer = await checks.ocr({ documentType: 'SyrianPassport', front: document.front, back: null });
    expect(answer.fieldsToConfirm).toBeUndefined();
  }, 120_000);
});
