import { describe, expect, it } from 'vitest';
import { ManualReviewRequiredError, type EvidenceBytes, type FaceMatchAnswer, type LivenessAnswer, type OcrAnswer } from '../src/contract.js';
import { ChecksUnavailableError, composeLocalChecks, type CheckEngines, type LocalChecksOptions } from '../src/provider.js';

/**
 * The provider's own logic (shared loading, slots, deadlines, answer checks) around small
 * in-process engines whose timing each test controls. The real engines are in provider.test.ts.
 */

const IMAGE: EvidenceBytes = { contentType: 'image/jpeg', bytes: Buffer.from([0xff, 0xd8, 0xff]) };
const VIDEO: EvidenceBytes = { contentType: 'video/mp4', bytes: Buffer.from('....ftypisom') };
const OCR_ANSWER: OcrAnswer = { modelName: 'test-ocr', modelVersion: '1', confidenceScore: 0.9, fields: { surname: 'KHOURY' }, mrzRawText: null, hasManipulationIndicators: false };
const MATCH_ANSWER: FaceMatchAnswer = { modelName: 'test-face', modelVersion: '1', similarityScore: 0.7 };
const LIVENESS_ANSWER: LivenessAnswer = { modelName: 'test-liveness', modelVersion: '1', livenessScore: 0.2, presentationAttackDetected: true, attackType: 'photo' };
const MODELS = { ocr: { name: 'test-ocr' }, faceMatch: { name: 'test-face' }, liveness: { name: 'test-liveness' } } as unknown as CheckEngines['models'];

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Engines that count loads, closes and concurrent inferences; `hold` makes every inference wait for a gate. */
function testEngines(overrides: { ocrProblems?: string[]; failLoads?: number; loadGate?: Gate; hold?: Gate; ocrAnswer?: Partial<OcrAnswer>; matchError?: Error } = {}) {
  const counts = { ocrLoads: 0, faceLoads: 0, closes: 0, running: 0, mostRunning: 0, inferences: 0 };
  let failuresLeft = overrides.failLoads ?? 0;
  const infer = async <T>(answer: T): Promise<T> => {
    counts.running += 1;
    counts.inferences += 1;
    counts.mostRunning = Math.max(counts.mostRunning, counts.running);
    try {
      await (overrides.hold?.promise ?? new Promise((resolve) => setTimeout(resolve, 5)));
      return answer;
    } finally {
      counts.running -= 1;
    }
  };
  const close = async () => {
    counts.closes += 1;
  };
  const engines: CheckEngines = {
    models: MODELS,
    ocr: {
      label: 'OCR',
      problems: async () => overrides.ocrProblems ?? [],
      load: async () => {
        counts.ocrLoads += 1;
        await overrides.loadGate?.promise;
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          throw new Error('wasm at /secret/path/core.wasm failed to compile');
        }
        return { read: () => infer({ ...OCR_ANSWER, ...overrides.ocrAnswer }), mrzReadable: () => infer(true), close };
      },
    },
    face: {
      label: 'face',
      problems: async () => [],
      load: async () => {
        counts.faceLoads += 1;
        return {
          match: () => (overrides.matchError ? Promise.reject(overrides.matchError) : infer(MATCH_ANSWER)),
          liveness: () => infer(LIVENESS_ANSWER),
          countFaces: () => infer(1),
          close,
        };
      },
    },
  };
  return { engines, counts };
}

const OPTIONS: LocalChecksOptions = { concurrency: 2, loadTimeoutMs: 1_000, inferenceTimeoutMs: 1_000, queueTimeoutMs: 1_000 };
const ocrCall = { documentType: 'SyrianPassport', front: IMAGE, back: null } as const;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('the local checks provider', () => {
  it('loads each engine once for concurrent first callers, and answers what the engines answer', async () => {
    const { engines, counts } = testEngines();
    const checks = composeLocalChecks(engines, OPTIONS);
    const answers = await Promise.all([checks.ocr(ocrCall), checks.ocr(ocrCall), checks.faceMatch({ document: IMAGE, selfie: IMAGE }), checks.liveness({ video: VIDEO, document: null })]);
    expect(answers).toEqual([OCR_ANSWER, OCR_ANSWER, MATCH_ANSWER, LIVENESS_ANSWER]);
    expect(counts).toMatchObject({ ocrLoads: 1, faceLoads: 1 });
    await checks.close();
    expect(counts.closes).toBe(2);
  });

  it('reports not ready before warm-up and ready after, with the models it runs', async () => {
    const checks = composeLocalChecks(testEngines().engines, OPTIONS);
    expect(await checks.status()).toEqual({ ready: false, problems: ['the OCR engine is not loaded yet', 'the face engine is not loaded yet'], models: MODELS });
    await checks.warm();
    expect(await checks.status()).toEqual({ ready: true, problems: [], models: MODELS });
    await checks.close();
  });

  it('sends a check to manual review with the problem text when a model file is missing, and never loads that engine', async () => {
    const { engines, counts } = testEngines({ ocrProblems: ['the MRZ model eng.traineddata is missing'] });
    const checks = composeLocalChecks(engines, OPTIONS);
    const error = await rejection(checks.ocr(ocrCall));
    expect(error).toBeInstanceOf(ManualReviewRequiredError);
    expect((error as ManualReviewRequiredError).reason).toBe('the OCR engine cannot run: the MRZ model eng.traineddata is missing');
    expect(counts.ocrLoads).toBe(0);
    await expect(checks.warm()).rejects.toThrow('the MRZ model eng.traineddata is missing');
    // Face works on its own; status lists the missing file once, not again as a failed load.
    await expect(checks.faceMatch({ document: IMAGE, selfie: IMAGE })).resolves.toEqual(MATCH_ANSWER);
    expect(await checks.status()).toMatchObject({ ready: false, problems: ['the MRZ model eng.traineddata is missing'] });
    await checks.close();
  });

  it('tries a failed load again on the next call, and keeps the failure\'s internals out of the reason', async () => {
    const { engines, counts } = testEngines({ failLoads: 1 });
    const checks = composeLocalChecks(engines, OPTIONS);
    const error = await rejection(checks.ocr(ocrCall));
    expect(error).toBeInstanceOf(ManualReviewRequiredError);
    expect((error as ManualReviewRequiredError).reason).toBe('OCR could not be completed by the local checks');
    expect((error as Error).cause).toMatchObject({ message: expect.stringContaining('/secret/path') });
    expect((await checks.status()).problems).toContain('OCR could not be completed by the local checks');
    await expect(checks.ocr(ocrCall)).resolves.toEqual(OCR_ANSWER);
    expect(counts.ocrLoads).toBe(2);
    await checks.close();
  });

  it('fails a load that takes longer than its time-out, and closes the engine when it arrives late', async () => {
    const loadGate = gate();
    const { engines, counts } = testEngines({ loadGate });
    const checks = composeLocalChecks(engines, { ...OPTIONS, loadTimeoutMs: 50 });
    await expect(checks.ocr(ocrCall)).rejects.toThrow('the OCR engine took longer than 50 ms to load');
    loadGate.open();
    await expect.poll(() => counts.closes).toBe(1);
    await expect(checks.ocr(ocrCall)).resolves.toEqual(OCR_ANSWER);
    expect(counts.ocrLoads).toBe(2);
    await checks.close();
  });

  it('runs at most `concurrency` checks at once, across all three kinds', async () => {
    const hold = gate();
    const { engines, counts } = testEngines({ hold });
    const checks = composeLocalChecks(engines, { ...OPTIONS, concurrency: 2 });
    await checks.warm();
    const calls = [checks.ocr(ocrCall), checks.faceMatch({ document: IMAGE, selfie: IMAGE }), checks.liveness({ video: VIDEO, document: null }), checks.ocr(ocrCall), checks.ocr(ocrCall)];
    await expect.poll(() => counts.running).toBe(2);
    // Give the queue a chance to overrun the limit if it could.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(counts.inferences).toBe(2);
    hold.open();
    await Promise.all(calls);
    expect(counts).toMatchObject({ mostRunning: 2, inferences: 5 });
    await checks.close();
  });

  it('refuses a call as unavailable (not manual review) when no slot frees up in time', async () => {
    const hold = gate();
    const checks = composeLocalChecks(testEngines({ hold }).engines, { ...OPTIONS, concurrency: 1, queueTimeoutMs: 40 });
    const first = checks.ocr(ocrCall);
    const error = await rejection(checks.ocr(ocrCall));
    expect(error).toBeInstanceOf(ChecksUnavailableError);
    expect((error as Error).message).toBe('OCR: all 1 check slots stayed busy for 40 ms');
    hold.open();
    await first;
    await checks.close();
  });

  it('gives a quality hint its own short wait for a slot: behind a busy case check it is refused at once, not queued for seconds', async () => {
    const hold = gate();
    const checks = composeLocalChecks(testEngines({ hold }).engines, { ...OPTIONS, concurrency: 1, queueTimeoutMs: 5_000, hintQueueTimeoutMs: 30 });
    const first = checks.ocr(ocrCall);
    const started = performance.now();
    const error = await rejection(checks.faceCount({ image: IMAGE }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((error as Error).message).toBe('face hint: all 1 check slots stayed busy for 30 ms');
    hold.open();
    await first;
    expect(await checks.mrzReadable({ documentType: 'SyrianPassport', image: IMAGE, side: 'front' })).toBe(true);
    expect(await checks.faceCount({ image: IMAGE })).toBe(1);
    await checks.close();
  });

  it('frees a hint\'s slot the moment its caller gives up, so a case check waiting behind it starts at once', async () => {
    const hold = gate();
    const { engines, counts } = testEngines({ hold });
    const checks = composeLocalChecks(engines, { ...OPTIONS, concurrency: 1, queueTimeoutMs: 5_000 });
    const caller = new AbortController();
    const hint = checks.faceCount({ image: IMAGE, signal: caller.signal });
    hint.catch(() => undefined);
    await expect.poll(() => counts.inferences).toBe(1);
    const check = checks.faceMatch({ document: IMAGE, selfie: IMAGE });
    caller.abort();
    // The check's inference begins while the abandoned hint's is still held at the gate.
    await expect.poll(() => counts.inferences).toBe(2);
    expect(counts.running).toBe(2);
    // Another hint on that engine would only queue inside its thread behind the abandoned one: refused at once.
    expect(((await rejection(checks.faceCount({ image: IMAGE, signal: new AbortController().signal }))) as Error).message).toBe(
      'face hint: an earlier look the caller gave up on is still running',
    );
    hold.open();
    await expect(check).resolves.toEqual(MATCH_ANSWER);
    expect(await checks.faceCount({ image: IMAGE, signal: new AbortController().signal }), 'once it ends, hints run again').toBe(1);
    await checks.close();
  });

  it('drops a hint given up while it waits for a slot or for the models: it leaves the queue and never infers', async () => {
    const hold = gate();
    const loadGate = gate();
    const { engines, counts } = testEngines({ hold, loadGate });
    const checks = composeLocalChecks(engines, { ...OPTIONS, concurrency: 1, queueTimeoutMs: 5_000, hintQueueTimeoutMs: 5_000 });
    // The OCR engine is still loading: the hint holds the only slot, waiting for it.
    const loading = new AbortController();
    const coldHint = rejection(checks.mrzReadable({ documentType: 'SyrianPassport', image: IMAGE, side: 'front', signal: loading.signal }));
    await expect.poll(() => counts.ocrLoads).toBe(1);
    const waiting = new AbortController();
    const queuedHint = rejection(checks.faceCount({ image: IMAGE, signal: waiting.signal }));
    waiting.abort();
    expect(((await queuedHint) as Error).message).toBe('face hint: abandoned by its caller while waiting for a slot');
    loading.abort();
    // The slot is free before the load ends: a face check takes it and runs.
    const check = checks.faceMatch({ document: IMAGE, selfie: IMAGE });
    await expect.poll(() => counts.inferences).toBe(1);
    loadGate.open();
    expect(((await coldHint) as Error).message).toBe('MRZ hint: abandoned by its caller');
    hold.open();
    await expect(check).resolves.toEqual(MATCH_ANSWER);
    expect(counts.inferences, 'the abandoned hints never ran').toBe(1);
    await checks.close();
  });

  it('answers a check that never settles with manual review, yet keeps its slot until the work really ends', async () => {
    const hold = gate();
    const { engines, counts } = testEngines({ hold });
    const checks = composeLocalChecks(engines, { ...OPTIONS, concurrency: 1, inferenceTimeoutMs: 40, queueTimeoutMs: 5_000 });
    await expect(checks.ocr(ocrCall)).rejects.toThrow(new ManualReviewRequiredError('OCR took longer than 40 ms'));
    const next = checks.faceMatch({ document: IMAGE, selfie: IMAGE });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(counts.inferences).toBe(1);
    hold.open();
    await expect(next).resolves.toEqual(MATCH_ANSWER);
    await checks.close();
  });

  it('sends a score outside 0..1 to manual review instead of passing it on', async () => {
    const checks = composeLocalChecks(testEngines({ ocrAnswer: { confidenceScore: Number.NaN } }).engines, OPTIONS);
    await expect(checks.ocr(ocrCall)).rejects.toThrow(new ManualReviewRequiredError('OCR produced an unusable confidenceScore'));
    await checks.close();
  });

  it('passes an engine\'s own manual-review reason through unchanged, and hides an unexpected error\'s message', async () => {
    const reason = new ManualReviewRequiredError('no face found in the selfie');
    const own = composeLocalChecks(testEngines({ matchError: reason }).engines, OPTIONS);
    await expect(own.faceMatch({ document: IMAGE, selfie: IMAGE })).rejects.toBe(reason);
    await own.close();
    const unexpected = composeLocalChecks(testEngines({ matchError: new TypeError("Cannot read properties of undefined (reading 'inputNodes')") }).engines, OPTIONS);
    await expect(unexpected.faceMatch({ document: IMAGE, selfie: IMAGE })).rejects.toThrow(new ManualReviewRequiredError('face match could not be completed by the local checks'));
    await unexpected.close();
  });

  it('lets running checks finish on close, then closes the engines and refuses new calls', async () => {
    const hold = gate();
    const { engines, counts } = testEngines({ hold });
    const checks = composeLocalChecks(engines, OPTIONS);
    const running = checks.ocr(ocrCall);
    await expect.poll(() => counts.running).toBe(1);
    const closed = checks.close();
    await expect(checks.ocr(ocrCall)).rejects.toBeInstanceOf(ChecksUnavailableError);
    expect(counts.closes).toBe(0);
    hold.open();
    await expect(running).resolves.toEqual(OCR_ANSWER);
    await closed;
    expect(counts.closes).toBe(1);
  });

  it('refuses a concurrency below one', () => {
    expect(() => composeLocalChecks(testEngines().engines, { concurrency: 0 })).toThrow(RangeError);
  });
});
