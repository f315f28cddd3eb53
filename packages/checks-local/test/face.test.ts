/**
 * The face engine as the provider uses it: real Human in its worker thread, real images cut from
 * Human's sample assets at run time. Asserts orderings and failure reasons, never exact scores.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualReviewRequiredError } from '../src/contract.js';
import type { EvidenceBytes } from '../src/contract.js';
import { EMBEDDING_LENGTH, FACE_MODEL, assertUsableEmbedding, createFaceEngine, faceModelProblems, faceSimilarity } from '../src/face/index.js';
import type { FaceEngine } from '../src/face/index.js';
import { imageDimensions } from '../src/face/image-dimensions.js';
import { SAMPLE_FACES, humanAssetsDirectory, sampleFaceJpeg } from '../src/synthetic/video-sample-faces.js';

let engine: FaceEngine;

beforeAll(async () => {
  engine = await createFaceEngine({ loadTimeoutMs: 30_000, inferenceTimeoutMs: 30_000 });
}, 60_000);

afterAll(async () => {
  await engine?.close();
});

const jpeg = (bytes: Buffer): EvidenceBytes => ({ contentType: 'image/jpeg', bytes });
const faceNamed = (name: string) => SAMPLE_FACES.find((face) => face.name === name)!;
const sample = async (name: string) => jpeg(await sampleFaceJpeg(faceNamed(name)));

/** A grey canvas with coloured noise: an image with no face in it. */
function noiseImage(): EvidenceBytes {
  const canvas = createCanvas(480, 360);
  const context = canvas.getContext('2d');
  const pixels = context.createImageData(480, 360);
  let seed = 7;
  for (let index = 0; index < pixels.data.length; index++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    pixels.data[index] = index % 4 === 3 ? 255 : 96 + (seed % 64);
  }
  context.putImageData(pixels, 0, 0);
  return { contentType: 'image/png', bytes: canvas.toBuffer('image/png') };
}

async function expectManualReview(promise: Promise<unknown>, reason: string | RegExp) {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ManualReviewRequiredError);
  if (typeof reason === 'string') expect((error as ManualReviewRequiredError).reason).toBe(reason);
  else expect((error as ManualReviewRequiredError).reason).toMatch(reason);
}

describe('face match', () => {
  it('scores photos of the same man above photos of different people on average', async () => {
    const document = await sample('person-a-1');
    const sameMan = ['person-a-2', 'person-a-4', 'person-a-6', 'person-a-8', 'person-a-dinner'];
    const others = ['other-r2c4', 'other-r2c7', 'other-r3c2', 'other-r3c5', 'other-r5c8'];
    const scores = async (names: string[]) => {
      const result: number[] = [];
      for (const name of names) {
        const answer = await engine.match({ document, selfie: await sample(name) });
        expect(answer).toMatchObject({ modelName: FACE_MODEL.name, modelVersion: FACE_MODEL.version });
        expect(answer.similarityScore).toBeGreaterThanOrEqual(0);
        expect(answer.similarityScore).toBeLessThanOrEqual(1);
        result.push(answer.similarityScore);
      }
      return result.reduce((sum, score) => sum + score, 0) / result.length;
    };
    expect(await scores(sameMan)).toBeGreaterThan(await scores(others));
  });

  it('finds the portrait on a larger page, where the face is a small part of it', async () => {
    const page = createCanvas(1200, 800);
    const context = page.getContext('2d');
    context.fillStyle = '#e8e4d8';
    context.fillRect(0, 0, 1200, 800);
    const { loadImage } = await import('@napi-rs/canvas');
    context.drawImage(await loadImage(await sampleFaceJpeg(faceNamed('person-a-3'), { scale: 2, margin: 0.1 })), 60, 200, 250, 250);
    const answer = await engine.match({ document: jpeg(page.toBuffer('image/jpeg')), selfie: await sample('person-a-5') });
    expect(answer.similarityScore).toBeGreaterThan(0.3);
  });

  it('sends a selfie without a face to review', async () => {
    await expectManualReview(engine.match({ document: await sample('person-a-1'), selfie: noiseImage() }), 'Face match: no face found in the selfie');
  });

  it('sends a document without a face to review', async () => {
    await expectManualReview(engine.match({ document: noiseImage(), selfie: await sample('person-a-1') }), 'Face match: no face found in the document');
  });

  it('sends a selfie with two people in it to review', async () => {
    const { loadImage } = await import('@napi-rs/canvas');
    const canvas = createCanvas(900, 450);
    const context = canvas.getContext('2d');
    context.drawImage(await loadImage(await sampleFaceJpeg(faceNamed('person-a-2'))), 0, 0, 450, 450);
    context.drawImage(await loadImage(await sampleFaceJpeg(faceNamed('other-r3c1'))), 450, 0, 450, 450);
    await expectManualReview(engine.match({ document: await sample('person-a-1'), selfie: jpeg(canvas.toBuffer('image/jpeg')) }), 'Face match: more than one face in the selfie');
  });

  it('sends bytes that are not an image to review', async () => {
    await expectManualReview(engine.match({ document: await sample('person-a-1'), selfie: jpeg(Buffer.from('not an image at all')) }), 'Face match: the selfie could not be read as an image');
  });
});

describe('image headers', () => {
  it('reads JPEG, PNG and WebP sizes before decoding', async () => {
    const canvas = createCanvas(321, 123);
    expect(imageDimensions(canvas.toBuffer('image/png'))).toEqual({ width: 321, height: 123 });
    expect(imageDimensions(canvas.toBuffer('image/jpeg'))).toEqual({ width: 321, height: 123 });
    expect(imageDimensions(await canvas.encode('webp', 80))).toEqual({ width: 321, height: 123 });
    expect(imageDimensions(await canvas.encode('webp', 100))).toEqual({ width: 321, height: 123 });
    expect(imageDimensions(Buffer.from('GIF89a'))).toBeNull();
  });

  it('refuses an image whose header declares more pixels than any photo has', async () => {
    const bomb = createCanvas(10, 10).toBuffer('image/png');
    bomb.writeUInt32BE(60_000, 16);
    bomb.writeUInt32BE(60_000, 20);
    await expectManualReview(engine.match({ document: await sample('person-a-1'), selfie: { contentType: 'image/png', bytes: bomb } }), 'Face match: the selfie is too large an image to check');
  });
});

describe('the descriptor guard', () => {
  const descriptor = (value: (index: number) => number) => Float32Array.from({ length: EMBEDDING_LENGTH }, (_, index) => value(index));

  it('refuses empty, short and non-finite descriptors instead of scoring them as identical', () => {
    expect(() => faceSimilarity([], [])).toThrow(ManualReviewRequiredError);
    expect(() => faceSimilarity(descriptor(() => 0.1).subarray(1), descriptor(() => 0.1).subarray(1))).toThrow(ManualReviewRequiredError);
    expect(() => faceSimilarity(descriptor(() => 0.1), descriptor(() => 0.1).subarray(1))).toThrow(ManualReviewRequiredError);
    expect(() => assertUsableEmbedding(descriptor((index) => (index === 5 ? Number.NaN : 0.1)), 'the selfie')).toThrow('Face match: no usable face description for the selfie');
    expect(() => assertUsableEmbedding(null, 'the selfie')).toThrow(ManualReviewRequiredError);
  });

  it('gives the same score as Human 3.3.6 match.similarity on full descriptors', async () => {
    const require = createRequire(import.meta.url);
    const humanDir = path.resolve(path.dirname(require.resolve('@vladmandic/human')), '..');
    const { match } = require(path.join(humanDir, 'dist', 'human.node-wasm.js')) as { match: { similarity(a: number[], b: number[]): number } };
    const first = descriptor((index) => Math.sin(index) / 30);
    for (const shift of [0, 0.001, 0.01, 0.03, 0.1]) {
      const second = descriptor((index) => Math.sin(index + shift * index) / 30);
      expect(faceSimilarity(first, second)).toBe(match.similarity(Array.from(first), Array.from(second)));
    }
    // The trap the guard exists for.
    expect(match.similarity([], [])).toBe(1);
  });
});

describe('health and fail-closed start-up', () => {
  it('reports nothing missing here, and a missing ffmpeg in plain words', async () => {
    expect(await faceModelProblems()).toEqual([]);
    expect(await faceModelProblems({ ffmpegPath: '/nonexistent/ffmpeg' })).toEqual(['ffmpeg is not installed: apt-get install -y ffmpeg']);
  });

  it('names the Human version it loads', async () => {
    const manifest = JSON.parse(await readFile(path.join(humanAssetsDirectory(), '..', 'package.json'), 'utf8')) as { version: string };
    expect(FACE_MODEL.version).toBe(manifest.version);
  });

  it('turns a model load that runs out of time into manual review', async () => {
    await expectManualReview(createFaceEngine({ loadTimeoutMs: 1, inferenceTimeoutMs: 30_000 }), 'Face check: the face model could not be loaded');
  });

  it('turns an inference that runs out of time into manual review', async () => {
    const impatient = await createFaceEngine({ loadTimeoutMs: 30_000, inferenceTimeoutMs: 1 });
    try {
      await expectManualReview(impatient.match({ document: await sample('person-a-1'), selfie: await sample('person-a-2') }), 'Face check: the face model did not answer in time');
    } finally {
      await impatient.close();
    }
  }, 60_000);
});
