/**
 * The measured set behind the local provider's default face threshold: every sample face from
 * Human's own assets (read from node_modules, never committed), all genuine pairs (same man)
 * and all impostor pairs (him against someone else). Prints the distributions; asserts only
 * the ordering and the recommended threshold's place in it, never exact scores.
 * Measured (2 cores, Node 20): genuine 66 pairs min 0.38 / median 0.62 / max 0.80; impostor
 * 240 pairs median 0.32 / p90 0.48 / max 0.59; about 250 ms an image.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvidenceBytes } from '../src/contract.js';
import { selfieEmbedding } from '../src/face/face-match.js';
import { startHumanClient } from '../src/face/human-client.js';
import type { HumanClient } from '../src/face/human-client.js';
import { RECOMMENDED_FACE_THRESHOLD, faceSimilarity } from '../src/face/index.js';
import { SAMPLE_FACES, sampleFaceJpeg } from '../src/synthetic/video-sample-faces.js';

let client: HumanClient;
const embeddings = new Map<string, Float32Array>();
let millisecondsPerImage = 0;

beforeAll(async () => {
  client = await startHumanClient({ loadTimeoutMs: 30_000, inferenceTimeoutMs: 30_000 });
  const started = performance.now();
  for (const face of SAMPLE_FACES) {
    const image: EvidenceBytes = { contentType: 'image/jpeg', bytes: await sampleFaceJpeg(face) };
    embeddings.set(face.name, await selfieEmbedding(client, image));
  }
  millisecondsPerImage = (performance.now() - started) / SAMPLE_FACES.length;
}, 120_000);

afterAll(async () => {
  await client?.close();
});

function summary(scores: number[]) {
  const sorted = [...scores].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  const mean = sorted.reduce((sum, score) => sum + score, 0) / sorted.length;
  return { pairs: sorted.length, min: sorted[0]!, p10: at(0.1), median: at(0.5), p90: at(0.9), max: sorted.at(-1)!, mean: Math.round(mean * 1000) / 1000 };
}

describe('face-similarity scores on the sample faces (uncalibrated)', () => {
  it('scores the same man above different people on average, and hardly any impostor reaches the default threshold', () => {
    const genuine: number[] = [];
    const impostor: number[] = [];
    for (const [index, first] of SAMPLE_FACES.entries()) {
      for (const second of SAMPLE_FACES.slice(index + 1)) {
        const isPersonA = [first, second].filter((face) => face.person === 'person-a').length;
        if (isPersonA === 0) continue; // the other people are not all surely distinct: not used
        const score = faceSimilarity(embeddings.get(first.name)!, embeddings.get(second.name)!);
        (first.person === second.person ? genuine : impostor).push(score);
      }
    }
    const genuineSummary = summary(genuine);
    const impostorSummary = summary(impostor);
    const share = (scores: number[], test: (score: number) => boolean) => Math.round((100 * scores.filter(test).length) / scores.length);
    console.log(JSON.stringify({
      millisecondsPerImage: Math.round(millisecondsPerImage),
      genuine: genuineSummary,
      impostor: impostorSummary,
      atThreshold: {
        threshold: RECOMMENDED_FACE_THRESHOLD,
        genuinePassPercent: share(genuine, (score) => score >= RECOMMENDED_FACE_THRESHOLD),
        genuineReviewPercent: share(genuine, (score) => score >= 0.5 && score < RECOMMENDED_FACE_THRESHOLD),
        genuineRejectPercent: share(genuine, (score) => score < 0.5),
        impostorPassPercent: share(impostor, (score) => score >= RECOMMENDED_FACE_THRESHOLD),
        impostorReviewPercent: share(impostor, (score) => score >= 0.5 && score < RECOMMENDED_FACE_THRESHOLD),
      },
    }));
    expect(genuine.length).toBeGreaterThan(30);
    expect(impostor.length).toBeGreaterThan(100);
    expect(genuineSummary.mean).toBeGreaterThan(impostorSummary.mean + 0.15);
    expect(genuineSummary.median).toBeGreaterThanOrEqual(RECOMMENDED_FACE_THRESHOLD);
    expect(impostor.filter((score) => score >= RECOMMENDED_FACE_THRESHOLD).length / impostor.length).toBeLessThanOrEqual(0.02);
  });
});
