/**
 * One tesseract.js worker (a worker thread running the wasm engine), created once and reused,
 * behind deadlines. tesseract.js's own failure handling is unsafe for a server: with no
 * errorHandler a failed load throws from an event handler (the process dies), with one the
 * createWorker promise never settles; a busy wasm loop never gives up. So here: files are checked
 * before (model-files.ts), every load and recognition races a timer, a worker that missed its
 * deadline or crashed is terminated, and the next call starts a fresh one.
 */
import { createWorker, OEM, type PSM, type Worker as TesseractWorker } from 'tesseract.js';
import { ManualReviewRequiredError } from '../contract.js';
import { englishDataFolder } from './model-files.js';

export type EngineKind = 'legacy' | 'lstm';

export interface RecognizerOptions {
  kind: EngineKind;
  loadTimeoutMs: number;
  inferenceTimeoutMs: number;
}

export interface RecognizeRequest {
  image: Buffer;
  /** Only these characters (the MRZ alphabet), or every character when absent. */
  whitelist?: string;
  pageSegmentation: PSM;
  /** Let tesseract measure the text's skew and straighten the image first (a photo taken at an angle). */
  straighten?: boolean;
}

export interface Recognizer {
  readonly kind: EngineKind;
  /** The recognised text, lines separated by "\n". */
  recognize(request: RecognizeRequest): Promise<string>;
  /** Starts the worker now (and waits for it) rather than on the first recognition. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const ENGINE_MODES: Record<EngineKind, OEM> = { legacy: OEM.TESSERACT_ONLY, lstm: OEM.LSTM_ONLY };

/** Rejects with a reason fit for a case when `work` outlasts `ms`, after running `onTimeout`. */
export function withDeadline<T>(work: Promise<T>, ms: number, reason: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new ManualReviewRequiredError(reason));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

async function startWorker(kind: EngineKind, loadTimeoutMs: number, onCrash: (error: unknown) => void): Promise<TesseractWorker> {
  const langPath = englishDataFolder(kind);
  if (langPath === null) throw new ManualReviewRequiredError('OCR: the tesseract English model is missing');
  const legacy = kind === 'legacy';
  let failLoad: (error: unknown) => void = () => {};
  const loadFailed = new Promise<never>((_resolve, reject) => {
    failLoad = reject;
  });
  // Observed by the race below; this only keeps a late failure from being an unhandled rejection.
  loadFailed.catch(() => {});
  let loading = true;
  const pending = createWorker('eng', ENGINE_MODES[kind], {
    langPath,
    gzip: true,
    // Never read or write a traineddata cache in the working directory: the data is read-only here.
    cacheMethod: 'none',
    // The legacy engine needs the legacy-capable core and data; the LSTM engine is smaller without them.
    legacyCore: legacy,
    legacyLang: legacy,
    // While loading, an error fails the load; afterwards, tesseract.js also rejects the job itself.
    errorHandler: (error: unknown) => {
      if (loading) failLoad(error);
    },
  });
  try {
    const worker = await withDeadline(Promise.race([pending, loadFailed]), loadTimeoutMs, `OCR: the ${kind} tesseract engine did not load within ${loadTimeoutMs} ms`, () => {});
    // The worker thread dying (a wasm abort) must fail the job in flight, not the process.
    const thread = (worker as unknown as { worker?: NodeJS.EventEmitter }).worker;
    thread?.on('error', onCrash);
    thread?.on('exit', onCrash);
    return worker;
  } catch (error) {
    // A load that finishes after its deadline still holds a thread: end it when it arrives.
    void pending.then((late) => late.terminate()).catch(() => {});
    if (error instanceof ManualReviewRequiredError) throw error;
    throw new ManualReviewRequiredError(`OCR: the ${kind} tesseract engine could not be loaded`, { cause: error });
  } finally {
    loading = false;
  }
}

/** A recognizer that starts its worker on first use and replaces it after a time-out or a crash. */
export function createRecognizer(options: RecognizerOptions): Recognizer {
  const { kind, loadTimeoutMs, inferenceTimeoutMs } = options;
  let worker: Promise<TesseractWorker> | null = null;
  let crashed: (error: unknown) => void = () => {};
  let closed = false;
  // setParameters and recognize are two messages: jobs take turns so one's parameters never apply to another's image.
  let queue: Promise<unknown> = Promise.resolve();

  function discard(current: Promise<TesseractWorker> | null): void {
    if (current === null) return;
    if (worker === current) worker = null;
    void current.then((stale) => stale.terminate()).catch(() => {});
  }

  function currentWorker(): Promise<TesseractWorker> {
    if (closed) return Promise.reject(new ManualReviewRequiredError('OCR: the engine is shutting down'));
    if (worker === null) {
      const starting = startWorker(kind, loadTimeoutMs, (error) => {
        // A worker we ended ourselves (after a time-out, or on close) exits too: that is not news.
        if (worker !== starting) return;
        discard(starting);
        crashed(error);
      });
      worker = starting;
      starting.catch(() => {
        if (worker === starting) worker = null;
      });
    }
    return worker;
  }

  async function runJob(request: RecognizeRequest): Promise<string> {
    const current = currentWorker();
    const tesseract = await current;
    const crash = new Promise<never>((_resolve, reject) => {
      crashed = (error) => reject(new ManualReviewRequiredError(`OCR: the ${kind} tesseract engine stopped while reading`, { cause: error }));
    });
    // A tesseract.js worker that was terminated throws from an un-awaited promise on its next call
    // (an unhandled rejection, fatal to a Node process): check it is still ours before each call.
    const stillOurs = () => {
      if (worker !== current) throw new ManualReviewRequiredError(`OCR: the ${kind} tesseract engine was stopped`);
    };
    const job = (async () => {
      stillOurs();
      await tesseract.setParameters({
        tessedit_pageseg_mode: request.pageSegmentation,
        tessedit_char_whitelist: request.whitelist ?? '',
        // The images are scaled to about 300 dpi; saying so also spares tesseract estimating it.
        user_defined_dpi: '300',
        // tesseract's diagnostics ("Image too small to scale!!") would go to the service's stderr on every read.
        debug_file: '/dev/null',
      });
      stillOurs();
      const { data } = await tesseract.recognize(request.image, { rotateAuto: request.straighten ?? false });
      return data.text;
    })();
    // Both are raced below; these keep a settlement after the deadline from being an unhandled rejection.
    job.catch(() => {});
    crash.catch(() => {});
    try {
      return await withDeadline(Promise.race([job, crash]), inferenceTimeoutMs, `OCR: reading the document took longer than ${inferenceTimeoutMs} ms`, () => discard(current));
    } catch (error) {
      if (error instanceof ManualReviewRequiredError) throw error;
      throw new ManualReviewRequiredError('OCR: the document image could not be read', { cause: error });
    } finally {
      crashed = () => {};
    }
  }

  return {
    kind,
    recognize(request) {
      const turn = queue.then(() => runJob(request));
      queue = turn.catch(() => {});
      return turn;
    },
    async ready() {
      await currentWorker();
    },
    async close() {
      closed = true;
      const current = worker;
      worker = null;
      if (current) await current.then((open) => open.terminate()).catch(() => {});
    },
  };
}
