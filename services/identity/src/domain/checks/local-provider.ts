import { ChecksUnavailableError, createLocalChecks, type QualityHints } from '@svc/checks-local';
import { TransientProviderError, type ChecksProvider, type ChecksProviderStatus, type EvidenceFile } from './checks-provider.js';
import { readEvidenceBytes } from './evidence-bytes.js';

export interface LocalChecksProviderOptions {
  ffmpegPath: string;
  /** Per check, model loading excluded (that has its own limit inside the package). */
  timeoutMs: number;
}

/** How long the health endpoint trusts one look at the models and ffmpeg (it spawns `ffmpeg -version`). */
const STATUS_TTL_MS = 60_000;

/**
 * The on-CPU provider (@svc/checks-local): tesseract.js for the MRZ, @vladmandic/human on
 * tfjs-wasm for faces, Debian's ffmpeg for the video's frames. Models load when the server starts
 * listening (warm()), or on the first live case if that comes first, in this process, and stay
 * warm. What the package cannot answer (no face, no readable
 * MRZ, a missing model or ffmpeg, a time-out) is the package's ManualReviewRequiredError, which
 * identity's checks treat as theirs, so such a case goes to a person, never to a pass.
 */
export function createLocalChecksProvider(options: LocalChecksProviderOptions): ChecksProvider & { close(): Promise<void>; warm(): Promise<void>; hints: QualityHints } {
  const checks = createLocalChecks({ ffmpegPath: options.ffmpegPath, inferenceTimeoutMs: options.timeoutMs });
  let lastStatus: { at: number; status: Promise<ChecksProviderStatus> } | null = null;

  async function answer<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      // Every slot busy, or shutting down: not the evidence's fault; the job queue tries again.
      if (error instanceof ChecksUnavailableError) throw new TransientProviderError(error.message, { cause: error });
      throw error;
    }
  }
  const bytes = async (check: string, file: EvidenceFile) => ({ contentType: file.contentType, bytes: await readEvidenceBytes(check, file) });

  return {
    name: 'local',
    ocr: async ({ documentType, front, back }) =>
      answer(async () => checks.ocr({ documentType, front: await bytes('OCR', front), back: back ? await bytes('OCR', back) : null })),
    faceMatch: async ({ document, selfie }) => answer(async () => checks.faceMatch({ document: await bytes('face match', document), selfie: await bytes('face match', selfie) })),
    liveness: async ({ video, document, headTurnSide }) =>
      answer(async () =>
        checks.liveness({ video: await bytes('liveness', video), document: await bytes('liveness', document), challenge: headTurnSide ? { headTurnSide } : {} }),
      ),
    status() {
      if (!lastStatus || Date.now() - lastStatus.at > STATUS_TTL_MS) {
        lastStatus = {
          at: Date.now(),
          status: checks.status().then(({ problems }) => {
            // Models load on the first live case: "not loaded yet" or "loading" is no fault; a missing file or a failed load is.
            const faults = problems.filter((problem) => !/engine is (loading|not loaded yet)$/.test(problem));
            return { ready: faults.length === 0, problems: faults };
          }),
        };
      }
      return lastStatus.status;
    },
    // The same engines and slots: a hint never loads a second copy of the models.
    hints: { mrzReadable: (input) => checks.mrzReadable(input), faceCount: (input) => checks.faceCount(input) },
    warm: () => checks.warm(),
    close: () => checks.close(),
  };
}
