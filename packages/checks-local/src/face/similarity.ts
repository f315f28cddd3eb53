/**
 * The face-similarity score, and the guard in front of it. Human's match.similarity returns 1
 * ("identical") for two empty descriptors and compares only as far as the first one's length,
 * so a failed description would pass as a perfect match: every descriptor is checked first.
 */
import { ManualReviewRequiredError } from '../contract.js';

/** faceres' descriptor length. */
export const EMBEDDING_LENGTH = 1024;

export function assertUsableEmbedding(embedding: ArrayLike<number> | null | undefined, what: string): asserts embedding is ArrayLike<number> {
  if (!embedding || embedding.length !== EMBEDDING_LENGTH) {
    throw new ManualReviewRequiredError(`Face match: no usable face description for ${what}`);
  }
  for (let index = 0; index < embedding.length; index++) {
    if (!Number.isFinite(embedding[index])) throw new ManualReviewRequiredError(`Face match: no usable face description for ${what}`);
  }
}

/**
 * Human 3.3.6's match.similarity with its defaults (order 2, multiplier 25, range 0.2–0.8),
 * restated so the score is computed where the guard is: 1 − √(25·Σd²)/100, rescaled from
 * [0.2, 0.8] to [0, 1], clamped and rounded to 2 decimals. An uncalibrated score, not a probability.
 */
export function faceSimilarity(first: ArrayLike<number>, second: ArrayLike<number>): number {
  assertUsableEmbedding(first, 'the first face');
  assertUsableEmbedding(second, 'the second face');
  let sum = 0;
  for (let index = 0; index < EMBEDDING_LENGTH; index++) {
    const difference = first[index]! - second[index]!;
    sum += difference * difference;
  }
  const distance = Math.round(100 * 25 * sum) / 100;
  if (distance === 0) return 1;
  const normalized = (1 - Math.sqrt(distance) / 100 - 0.2) / (0.8 - 0.2);
  return Math.round(100 * Math.max(Math.min(normalized, 1), 0)) / 100;
}
