import { availableParallelism } from 'node:os';
import { ManualReviewRequiredError, type DocumentType, type EvidenceBytes, type FaceMatchAnswer, type LivenessAnswer, type LocalChecks, type OcrAnswer } from './contract.js';
import { createFaceEngine, faceModelProblems, FACE_MODEL, LIVENESS_MODEL } from './face/index.js';
import { createOcrEngine, ocrModelProblems, OCR_MODEL } from './ocr/index.js';

export interface LocalChecksOptions {
  /** Time one engine may take to load its models (default 30 s); a slower load fails that call, and the next call tries again. */
  loadTimeoutMs?: number;
  /** Time one inference may take (default 20 s, under identity's 30 s CHECKS_TIMEOUT_MS so the answer is ours, not its time-out). */
  inferenceTimeoutMs?: number;
  /** Checks running at once (default: the CPU count); the wasm engines are single-threaded, so more only queue inside them. */
  concurrency?: number;
  /** How long a call may wait for a free slot (default 10 s) before it is refused as busy (a retry may find one). */
  queueTimeoutMs?: number;
  /** How long a quality hint may wait for a free slot (default 0.5 s): a hint late is a hint useless. */
  hintQueueTimeoutMs?: number;
  /** ffmpeg for liveness videos (default: `ffmpeg` on the PATH). */
  ffmpegPath?: string;
}

/** What each check runs: the names and versions its answers carry. */
export interface LocalChecksModels {
  ocr: typeof OCR_MODEL;
  faceMatch: typeof FACE_MODEL;
  liveness: typeof LIVENESS_MODEL;
}

export interface LocalChecksStatus {
  /** Both engines are loaded and nothing they need is missing. */
  ready: boolean;
  /** Why not, one sentence each: a missing model file or ffmpeg, an engine that failed to load or is still loading. */
  problems: string[];
  models: LocalChecksModels;
}

/**
 * Quick looks at one photo while the user is still there to take another; same engines and slots as the checks.
 * `signal`: the caller has stopped listening (its budget ran out). The look gives its slot back at
 * once, or leaves the queue if it is still waiting, and answers ChecksUnavailableError.
 */
export interface QualityHints {
  /** Whether the MRZ band reads with a valid check digit (passport: the front; ID card: the back). */
  mrzReadable(input: { documentType: DocumentType; image: EvidenceBytes; side: 'front' | 'back'; signal?: AbortSignal }): Promise<boolean>;
  /** Confident faces in a photo. */
  faceCount(input: { image: EvidenceBytes; signal?: AbortSignal }): Promise<number>;
}

export interface LocalChecksProvider extends LocalChecks, QualityHints {
  status(): Promise<LocalChecksStatus>;
  /** Loads both engines now rather than on the first call; throws what stopped either. */
  warm(): Promise<void>;
  /** Refuses new calls, lets running ones finish, then frees both engines. */
  close(): Promise<void>;
}

/**
 * No free slot in time, or the provider is closing: not the evidence's fault, so not a reason
 * for manual review. The HTTP server answers 503, which identity retries.
 */
export class ChecksUnavailableError extends Error {
  override name = 'ChecksUnavailableError';
}

/** The engines as the provider sees them; createLocalChecks passes the real ones, tests may pass others. */
export interface CheckEngines {
  ocr: EngineSource<{
    read(input: { documentType: DocumentType; front: EvidenceBytes; back: EvidenceBytes | null }): Promise<OcrAnswer>;
    mrzReadable(input: { documentType: DocumentType; front: EvidenceBytes; back: EvidenceBytes | null }): Promise<boolean>;
  }>;
  face: EngineSource<{
    match(input: { document: EvidenceBytes; selfie: EvidenceBytes }): Promise<FaceMatchAnswer>;
    liveness(input: Parameters<LocalChecks['liveness']>[0]): Promise<LivenessAnswer>;
    countFaces(input: { image: EvidenceBytes }): Promise<number>;
  }>;
  models: LocalChecksModels;
}

type Closable<TEngine> = TEngine & { close(): Promise<void> };

export interface EngineSource<TEngine> {
  /** What a person would read in a log or a case: `OCR`, `face`. */
  label: string;
  /** Missing files or programs, checked before each load attempt (cheap: file look-ups). */
  problems(): Promise<string[]>;
  load(): Promise<Closable<TEngine>>;
}

const DEFAULTS = { loadTimeoutMs: 30_000, inferenceTimeoutMs: 20_000, queueTimeoutMs: 10_000, hintQueueTimeoutMs: 500 };

/**
 * The engines enforce their own time limits with a precise message; the provider's deadline is a
 * backstop for an engine that never settles, so it comes a little later (10 %, at most 2 s).
 */
const backstop = (ms: number) => ms + Math.min(2_000, Math.ceil(ms / 10));

/**
 * The on-CPU checks: OCR + MRZ (tesseract), face match and liveness (human on wasm, ffmpeg).
 * Each engine is loaded once, on first use or by warm(); a failed load is tried again by the next
 * call. Anything that must go to a person (a model or ffmpeg missing, no face, a time-out) throws
 * ManualReviewRequiredError with a reason fit for the case; a full queue throws ChecksUnavailableError.
 */
export function createLocalChecks(options: LocalChecksOptions = {}): LocalChecksProvider {
  const loadTimeoutMs = options.loadTimeoutMs ?? DEFAULTS.loadTimeoutMs;
  const inferenceTimeoutMs = options.inferenceTimeoutMs ?? DEFAULTS.inferenceTimeoutMs;
  const ffmpeg = options.ffmpegPath === undefined ? {} : { ffmpegPath: options.ffmpegPath };
  return composeLocalChecks(
    {
      ocr: { label: 'OCR', problems: () => ocrModelProblems(), load: () => createOcrEngine({ loadTimeoutMs, inferenceTimeoutMs }) },
      face: { label: 'face', problems: () => faceModelProblems(ffmpeg), load: () => createFaceEngine({ loadTimeoutMs, inferenceTimeoutMs, ...ffmpeg }) },
      models: { ocr: OCR_MODEL, faceMatch: FACE_MODEL, liveness: LIVENESS_MODEL },
    },
    options,
  );
}

/** The provider around any engines: lazy shared loading, a slot limit, deadlines and answer checks. */
export function composeLocalChecks(engines: CheckEngines, options: LocalChecksOptions = {}): LocalChecksProvider {
  const loadTimeoutMs = options.loadTimeoutMs ?? DEFAULTS.loadTimeoutMs;
  const inferenceTimeoutMs = options.inferenceTimeoutMs ?? DEFAULTS.inferenceTimeoutMs;
  const queueTimeoutMs = options.queueTimeoutMs ?? DEFAULTS.queueTimeoutMs;
  const hintQueueTimeoutMs = options.hintQueueTimeoutMs ?? DEFAULTS.hintQueueTimeoutMs;
  const concurrency = options.concurrency ?? availableParallelism();
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);

  const ocr = lazyEngine(engines.ocr, loadTimeoutMs);
  const face = lazyEngine(engines.face, loadTimeoutMs);
  const slots = createSlots(concurrency);
  /** Abandoned hints still running, per engine: a new hint behind one would only queue inside that engine's thread. */
  const lingering = new Map<object, number>();
  let closing = false;

  /**
   * One check in one slot. A check's slot is held until the engine's work really ends, even after
   * the caller has been answered with a time-out: the CPU is still busy, and a freed slot would let
   * more work pile onto it than `concurrency` allows. A hint is the exception (`signal`): it is
   * short, and a hint nobody waits for any more must not keep a case's check waiting for its slot,
   * least of all while the models load; so an aborted hint frees its slot at once, and one still
   * waiting for the models never starts its inference. While an abandoned hint still runs on an
   * engine, further hints on it are refused at once, so hints cannot pile up inside its thread.
   */
  async function runCheck<TEngine, TAnswer>(
    check: string,
    engine: LazyEngine<TEngine>,
    infer: (engine: TEngine) => Promise<TAnswer>,
    verify: (answer: TAnswer) => void,
    waitMs = queueTimeoutMs,
    signal?: AbortSignal,
  ): Promise<TAnswer> {
    if (closing) throw new ChecksUnavailableError('the local checks are shutting down');
    const abandoned = () => new ChecksUnavailableError(`${check}: abandoned by its caller`);
    if (signal?.aborted) throw abandoned();
    if ((lingering.get(engine) ?? 0) > 0) throw new ChecksUnavailableError(`${check}: an earlier look the caller gave up on is still running`);
    const release = await slots.acquire(waitMs, check, signal);
    let running = false;
    const onAbort = () => {
      release();
      if (running) lingering.set(engine, (lingering.get(engine) ?? 0) + 1);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      signal?.removeEventListener('abort', onAbort);
      if (running && signal?.aborted) lingering.set(engine, (lingering.get(engine) ?? 1) - 1);
      release();
    };
    let work: Promise<TAnswer>;
    try {
      const loaded = await engine.get();
      if (signal?.aborted) throw abandoned();
      work = infer(loaded);
      running = true;
    } catch (error) {
      done();
      throw asCheckError(check, error);
    }
    work.then(done, done);
    try {
      const answer = await withDeadline(work, backstop(inferenceTimeoutMs), () => new ManualReviewRequiredError(`${check} took longer than ${inferenceTimeoutMs} ms`));
      verify(answer);
      return answer;
    } catch (error) {
      throw asCheckError(check, error);
    }
  }

  return {
    ocr: (input) => runCheck('OCR', ocr, (engine) => engine.read(input), verifyOcrAnswer),
    faceMatch: (input) => runCheck('face match', face, (engine) => engine.match(input), (answer) => verifyScore('face match', 'similarityScore', answer.similarityScore)),
    liveness: (input) => runCheck('liveness', face, (engine) => engine.liveness(input), verifyLivenessAnswer),
    mrzReadable: ({ documentType, image, side, signal }) =>
      runCheck('MRZ hint', ocr, (engine) => engine.mrzReadable({ documentType, front: image, back: side === 'back' ? image : null }), () => undefined, hintQueueTimeoutMs, signal),
    faceCount: ({ image, signal }) => runCheck('face hint', face, (engine) => engine.countFaces({ image }), () => undefined, hintQueueTimeoutMs, signal),

    async status() {
      // Missing files first; an engine's own state only when nothing is missing (it would repeat them).
      const problemsOf = async (source: EngineSource<unknown>, engine: LazyEngine<unknown>) => {
        const missing = await source.problems();
        const state = engine.state();
        return missing.length > 0 || state === null ? missing : [state];
      };
      const problems = (await Promise.all([problemsOf(engines.ocr, ocr), problemsOf(engines.face, face)])).flat();
      return { ready: problems.length === 0, problems, models: engines.models };
    },

    async warm() {
      if (closing) throw new ChecksUnavailableError('the local checks are shutting down');
      const results = await Promise.allSettled([ocr.get(), face.get()]);
      const failures = results.flatMap((result, index) => (result.status === 'rejected' ? [asCheckError(index === 0 ? 'OCR' : 'face', result.reason).message] : []));
      if (failures.length > 0) throw new ManualReviewRequiredError(failures.join('; '));
    },

    async close() {
      closing = true;
      await slots.drained();
      await Promise.all([ocr.close(), face.close()]);
    },
  };
}

interface LazyEngine<TEngine> {
  get(): Promise<TEngine>;
  /** null when loaded; otherwise why it is not (loading, failed, never asked for). */
  state(): string | null;
  close(): Promise<void>;
}

/**
 * One load shared by every caller. A failed or timed-out load is forgotten, so the next call
 * tries again (ffmpeg installed, a disk back) instead of failing until a restart; an engine
 * that finishes loading after its time-out is closed at once, not leaked.
 */
function lazyEngine<TEngine>(source: EngineSource<TEngine>, loadTimeoutMs: number): LazyEngine<Closable<TEngine>> {
  let loading: Promise<Closable<TEngine>> | null = null;
  let loaded: Closable<TEngine> | null = null;
  let lastFailure: string | null = null;

  async function load(): Promise<Closable<TEngine>> {
    const problems = await source.problems();
    if (problems.length > 0) throw new ManualReviewRequiredError(`the ${source.label} engine cannot run: ${problems.join('; ')}`);
    const attempt = source.load();
    return withDeadline(attempt, backstop(loadTimeoutMs), () => {
      attempt.then((late) => late.close(), () => undefined).catch(() => undefined);
      return new ManualReviewRequiredError(`the ${source.label} engine took longer than ${loadTimeoutMs} ms to load`);
    });
  }

  return {
    get() {
      if (!loading) {
        const current = load();
        loading = current;
        current.then(
          (engine) => {
            loaded = engine;
            lastFailure = null;
          },
          (error: unknown) => {
            if (loading === current) loading = null;
            lastFailure = asCheckError(source.label, error).message;
          },
        );
      }
      return loading;
    },
    state() {
      if (loaded) return null;
      if (loading) return `the ${source.label} engine is loading`;
      return lastFailure ?? `the ${source.label} engine is not loaded yet`;
    },
    async close() {
      const pending = loading;
      loading = null;
      loaded = null;
      const engine = await pending?.catch(() => null);
      await engine?.close();
    },
  };
}

/** At most `limit` holders; waiters are served first come, first served, each with its own time limit. */
function createSlots(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  let onDrained: Array<() => void> = [];

  function release(): void {
    const next = waiting.shift();
    if (next) return next();
    active -= 1;
    if (active === 0) {
      for (const resolve of onDrained) resolve();
      onDrained = [];
    }
  }

  /** A release that works once, so a double call cannot free a slot someone else holds. */
  function releaseOnce(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  }

  return {
    acquire(timeoutMs: number, check: string, signal?: AbortSignal): Promise<() => void> {
      if (active < limit) {
        active += 1;
        return Promise.resolve(releaseOnce());
      }
      return new Promise((resolve, reject) => {
        // The slot passes straight from the releasing holder to this waiter: `active` stays the same.
        const take = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', leave);
          resolve(releaseOnce());
        };
        const giveUp = (error: Error) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', leave);
          waiting.splice(waiting.indexOf(take), 1);
          reject(error);
        };
        const leave = () => giveUp(new ChecksUnavailableError(`${check}: abandoned by its caller while waiting for a slot`));
        const timer = setTimeout(() => giveUp(new ChecksUnavailableError(`${check}: all ${limit} check slots stayed busy for ${timeoutMs} ms`)), timeoutMs);
        signal?.addEventListener('abort', leave, { once: true });
        waiting.push(take);
      });
    },
    drained(): Promise<void> {
      return active === 0 ? Promise.resolve() : new Promise((resolve) => onDrained.push(resolve));
    },
  };
}

/** The promise's outcome, or the deadline's error if it comes first (the work itself goes on: it cannot be cancelled). */
function withDeadline<T>(work: Promise<T>, ms: number, onDeadline: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onDeadline()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Every failure of a check becomes a reason for a person to decide, except a busy or closing
 * provider (a retry helps). An unexpected error keeps a fixed reason (its message may name files
 * or internals, and reasons reach partners) and rides along as `cause` for the operator's log.
 */
function asCheckError(check: string, error: unknown): ManualReviewRequiredError | ChecksUnavailableError {
  if (error instanceof ManualReviewRequiredError || error instanceof ChecksUnavailableError) return error;
  return new ManualReviewRequiredError(`${check} could not be completed by the local checks`, { cause: error });
}

/** A score outside 0..1 (NaN from a degenerate embedding, say) would pass or fail a case on garbage. */
function verifyScore(check: string, name: string, score: number): void {
  if (!Number.isFinite(score) || score < 0 || score > 1) throw new ManualReviewRequiredError(`${check} produced an unusable ${name}`, { cause: new RangeError(`${name} = ${score}`) });
}

function verifyOcrAnswer(answer: OcrAnswer): void {
  verifyScore('OCR', 'confidenceScore', answer.confidenceScore);
}

function verifyLivenessAnswer(answer: LivenessAnswer): void {
  verifyScore('liveness', 'livenessScore', answer.livenessScore);
}
