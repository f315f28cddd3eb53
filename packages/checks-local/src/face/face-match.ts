/**
 * Document portrait against selfie: find exactly the face each image should have, check both
 * descriptors, and score them. Anything short of that goes to a person with a plain reason.
 */
import { ManualReviewRequiredError } from '../contract.js';
import type { EvidenceBytes } from '../contract.js';
import { decodeImage } from './decode-image.js';
import type { HumanClient } from './human-client.js';
import { assertUsableEmbedding } from './similarity.js';
import type { WorkerFace } from './worker-protocol.js';

/**
 * Human's detector reports weak candidates down to 0.2 (shadows, a face on a T-shirt); below
 * this overall score a detection is not counted as a face, neither to match nor to refuse.
 */
export const MIN_FACE_SCORE = 0.6;

export function confidentFaces(faces: readonly WorkerFace[]): WorkerFace[] {
  return faces.filter((face) => face.score >= MIN_FACE_SCORE);
}

/** The selfie must show one person: with two, which one is the applicant is a guess. */
export function selfieFace(faces: readonly WorkerFace[]): WorkerFace {
  const confident = confidentFaces(faces);
  if (confident.length === 0) throw new ManualReviewRequiredError('Face match: no face found in the selfie');
  if (confident.length > 1) throw new ManualReviewRequiredError('Face match: more than one face in the selfie');
  return confident[0]!;
}

/** A document may carry a second, smaller "ghost" portrait: the largest face is the holder's. */
export function documentFace(faces: readonly WorkerFace[]): WorkerFace {
  const confident = confidentFaces(faces);
  if (confident.length === 0) throw new ManualReviewRequiredError('Face match: no face found in the document');
  return confident.reduce((largest, face) => (face.box[2] * face.box[3] > largest.box[2] * largest.box[3] ? face : largest));
}

export async function documentEmbedding(client: HumanClient, document: EvidenceBytes): Promise<Float32Array> {
  const face = documentFace(await client.detectFaces(await decodeImage(document.bytes, 'the document'), { describe: true }));
  assertUsableEmbedding(face.embedding, 'the document portrait');
  return face.embedding;
}

export async function selfieEmbedding(client: HumanClient, selfie: EvidenceBytes): Promise<Float32Array> {
  const face = selfieFace(await client.detectFaces(await decodeImage(selfie.bytes, 'the selfie'), { describe: true }));
  assertUsableEmbedding(face.embedding, 'the selfie');
  return face.embedding;
}

/** Detection and mesh only (no descriptor): what a quick look at a selfie needs. An image that does not decode holds no face. */
export async function countFaces(client: HumanClient, image: EvidenceBytes): Promise<number> {
  let decoded: Awaited<ReturnType<typeof decodeImage>>;
  try {
    decoded = await decodeImage(image.bytes, 'the selfie');
  } catch (error) {
    if (error instanceof ManualReviewRequiredError) return 0;
    throw error;
  }
  return confidentFaces(await client.detectFaces(decoded, { describe: false })).length;
}
