/**
 * On-CPU face match and basic liveness signals: @vladmandic/human's bundled models on the tfjs
 * wasm backend, in one worker thread loaded once, and Debian's ffmpeg for video frames.
 * Scores are uncalibrated; every doubt becomes ManualReviewRequiredError, never a pass.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { ManualReviewRequiredError } from '../contract.js';
import type { EvidenceBytes, FaceMatchAnswer, LivenessAnswer, LocalChecks } from '../contract.js';
import { LIVENESS_CHALLENGE, checkLiveness } from '../liveness/check-liveness.js';
import { countFaces, documentEmbedding, selfieEmbedding } from './face-match.js';
import { startHumanClient } from './human-client.js';
import type { HumanClient } from './human-client.js';
import { missingHumanFiles } from './human-files.js';
import { faceSimilarity } from './similarity.js';

export { LIVENESS_CHALLENGE };
export { EMBEDDING_LENGTH, assertUsableEmbedding, faceSimilarity } from './similarity.js';

export interface FaceEngine {
  match(input: { document: EvidenceBytes; selfie: EvidenceBytes }): Promise<FaceMatchAnswer>;
  liveness(input: Parameters<LocalChecks['liveness']>[0]): Promise<LivenessAnswer>;
  /** The fast path: confident faces in one photo, detected without descriptors. */
  countFaces(input: { image: EvidenceBytes }): Promise<number>;
  close(): Promise<void>;
}

export interface FaceEngineOptions {
  loadTimeoutMs: number;
  inferenceTimeoutMs: number;
  /** Default: `ffmpeg` on PATH. */
  ffmpegPath?: string;
}

/** Human's faceres descriptor, scored with Human's match.similarity: a face-similarity score (uncalibrated). */
export const FACE_MODEL = { name: 'human-faceres', version: '3.3.6' } as const;
export const LIVENESS_MODEL = { name: 'basic-liveness-signals', version: '1.0.0' } as const;

/**
 * Defaults for CHECKS_FACE_THRESHOLD / CHECKS_LIVENESS_THRESHOLD with this provider, measured in
 * test/face-thresholds.test.ts and test/liveness.test.ts (figures in their headers).
 * Face: on the hard sample set no impostor pair reached it. Liveness: only a clip that shows
 * every signal scores above it (see liveness/signals.ts).
 */
export const RECOMMENDED_FACE_THRESHOLD = 0.6;
export const RECOMMENDED_LIVENESS_THRESHOLD = 0.9;

function ffmpegRuns(ffmpegPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(ffmpegPath, ['-hide_banner', '-version'], { timeout: 10_000 }, (error) => resolve(!error));
  });
}

/** [] when Human's files are on disk and ffmpeg runs; otherwise what an operator must fix. */
export async function faceModelProblems(options: { ffmpegPath?: string } = {}): Promise<string[]> {
  const problems = await missingHumanFiles();
  if (!(await ffmpegRuns(options.ffmpegPath ?? 'ffmpeg'))) problems.push('ffmpeg is not installed: apt-get install -y ffmpeg');
  return problems;
}

/**
 * A case's face match and liveness check both need the document portrait's descriptor: the
 * last few are kept by the document's SHA-256 so the second check does not pay for it again.
 */
function createDocumentEmbeddings(client: HumanClient, capacity = 8) {
  const cache = new Map<string, Float32Array>();
  return async (document: EvidenceBytes): Promise<Float32Array> => {
    const key = createHash('sha256').update(document.bytes).digest('hex');
    const cached = cache.get(key);
    if (cached) return cached;
    const embedding = await documentEmbedding(client, document);
    cache.set(key, embedding);
    if (cache.size > capacity) cache.delete(cache.keys().next().value!);
    return embedding;
  };
}

/** The document portrait is read the same way for liveness; its reason should say which check asked. */
function asLivenessReason(error: unknown): never {
  if (error instanceof ManualReviewRequiredError) {
    throw new ManualReviewRequiredError(error.reason.replace(/^Face match:/, 'Liveness:'), { cause: error });
  }
  throw error;
}

export async function createFaceEngine(options: FaceEngineOptions): Promise<FaceEngine> {
  const client = await startHumanClient(options);
  const ffmpegPath = options.ffmpegPath ?? 'ffmpeg';
  const portraitOf = createDocumentEmbeddings(client);
  return {
    async match(input) {
      const similarityScore = faceSimilarity(await portraitOf(input.document), await selfieEmbedding(client, input.selfie));
      return { modelName: FACE_MODEL.name, modelVersion: FACE_MODEL.version, similarityScore };
    },
    async liveness(input) {
      const document = input.document ? await portraitOf(input.document).catch(asLivenessReason) : null;
      const verdict = await checkLiveness({ client, ffmpegPath, decodeTimeoutMs: options.inferenceTimeoutMs }, input.video.bytes, document, input.challenge);
      return {
        modelName: LIVENESS_MODEL.name,
        modelVersion: LIVENESS_MODEL.version,
        livenessScore: verdict.livenessScore,
        presentationAttackDetected: verdict.presentationAttackDetected,
        attackType: verdict.attackType,
      };
    },
    countFaces: (input) => countFaces(client, input.image),
    close: () => client.close(),
  };
}
