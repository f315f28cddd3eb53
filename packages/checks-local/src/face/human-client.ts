/**
 * The main thread's handle on human-worker.ts: starts it (the models load once there), sends
 * one image at a time, and times out both the load and each inference. wasm cannot be
 * interrupted, so a time-out terminates the worker; the next call starts a fresh one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ManualReviewRequiredError } from '../contract.js';
import { REQUIRED_MODELS, humanConfig, locateHumanFiles } from './human-files.js';
import type { HumanWorkerData, RgbImage, WorkerFace, WorkerReply } from './worker-protocol.js';

export interface HumanClientOptions {
  loadTimeoutMs: number;
  inferenceTimeoutMs: number;
}

export interface HumanClient {
  /** Faces in one image, as Human sees them (no filtering here); `describe` adds descriptors. */
  detectFaces(image: RgbImage, options: { describe: boolean }): Promise<WorkerFace[]>;
  readonly version: string;
  close(): Promise<void>;
}

type PendingRequests = Map<number, { resolve: (faces: WorkerFace[]) => void; reject: (error: Error) => void }>;

interface RunningWorker {
  worker: Worker;
  version: string;
  pending: PendingRequests;
}

/**
 * Built, the worker is dist/face/human-worker.js beside this file. From TypeScript source (vitest),
 * there is no .js: the one self-contained worker file is transpiled (types stripped) and started
 * from a string, so tests always run the current source, never a stale build.
 */
async function startWorkerThread(workerData: HumanWorkerData): Promise<Worker> {
  const compiled = new URL('./human-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, { workerData });
  const sourceFile = fileURLToPath(new URL('./human-worker.ts', import.meta.url));
  const typescript = (await import('typescript')).default;
  const { outputText } = typescript.transpileModule(readFileSync(sourceFile, 'utf8'), {
    compilerOptions: { module: typescript.ModuleKind.CommonJS, target: typescript.ScriptTarget.ES2022, esModuleInterop: true },
  });
  return new Worker(outputText, { eval: true, workerData });
}

class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout();
      reject(new TimeoutError('timed out'));
    }, timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** One worker thread's replies, routed to the request that asked (ids) or to its start-up. */
function watchWorker(worker: Worker) {
  const pending: PendingRequests = new Map();
  let onReady: ((version: string) => void) | null = null;
  let onStartFailure: ((error: Error) => void) | null = null;
  const ready = new Promise<string>((resolve, reject) => {
    onReady = resolve;
    onStartFailure = reject;
  });
  const failAll = (error: Error) => {
    onStartFailure?.(error);
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  };
  worker.on('message', (message: WorkerReply) => {
    if (message.kind === 'ready') onReady?.(message.version);
    else if (message.kind === 'failed') failAll(new Error(message.message));
    else {
      const request = pending.get(message.id);
      pending.delete(message.id);
      if (message.kind === 'faces') request?.resolve(message.faces);
      else request?.reject(new Error(message.message));
    }
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`the face worker stopped (exit code ${code})`)));
  return { ready, pending };
}

export async function startHumanClient(options: HumanClientOptions): Promise<HumanClient> {
  const files = locateHumanFiles();
  const workerData: HumanWorkerData = {
    humanDir: files.humanDir,
    requiredModels: REQUIRED_MODELS.map((model) => model.key),
    config: humanConfig(files),
  };
  let nextId = 1;
  let current: RunningWorker | null = null;
  let starting: Promise<RunningWorker> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const stop = (running: RunningWorker) => {
    if (current === running) current = null;
    void running.worker.terminate();
  };

  const ensureWorker = (): Promise<RunningWorker> => {
    if (current) return Promise.resolve(current);
    starting ??= (async (): Promise<RunningWorker> => {
      const worker = await startWorkerThread(workerData);
      worker.unref();
      const { ready, pending } = watchWorker(worker);
      try {
        const version = await withTimeout(ready, options.loadTimeoutMs, () => void worker.terminate());
        const running: RunningWorker = { worker, version, pending };
        current = running;
        worker.once('exit', () => {
          if (current === running) current = null;
        });
        return running;
      } catch (error) {
        void worker.terminate();
        throw new ManualReviewRequiredError('Face check: the face model could not be loaded', { cause: error });
      }
    })().finally(() => {
      starting = null;
    });
    return starting;
  };

  const detectNow = async (image: RgbImage, describe: boolean): Promise<WorkerFace[]> => {
    if (closed) throw new ManualReviewRequiredError('Face check: the face model has been shut down');
    const running = await ensureWorker();
    const id = nextId++;
    const answer = new Promise<WorkerFace[]>((resolve, reject) => running.pending.set(id, { resolve, reject }));
    // The pixels are copied so the caller's buffer stays usable; the copy moves without a second copy.
    const rgb = image.rgb.slice();
    running.worker.postMessage({ id, describe, width: image.width, height: image.height, rgb }, [rgb.buffer]);
    try {
      return await withTimeout(answer, options.inferenceTimeoutMs, () => stop(running));
    } catch (error) {
      const reason = error instanceof TimeoutError ? 'did not answer in time' : 'failed on this image';
      throw new ManualReviewRequiredError(`Face check: the face model ${reason}`, { cause: error });
    }
  };

  const first = await ensureWorker();
  return {
    version: first.version,
    detectFaces(image, { describe }) {
      const result = queue.then(() => detectNow(image, describe));
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      closed = true;
      const running = current;
      current = null;
      if (running) await running.worker.terminate();
    },
  };
}
