/**
 * The worker thread that owns the one Human instance. Human runs synchronous wasm kernels: in
 * the checks worker's main thread a 100 ms inference would stall leases and webhooks, so it
 * lives here, loaded once, and answers one request at a time (the client queues them).
 *
 * This file imports nothing of ours at run time: when the package runs from TypeScript source
 * (tests), the client transpiles this one file alone and starts it from a string.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { HumanWorkerData, WorkerFace, WorkerReply, WorkerRequest } from './worker-protocol.js';

interface HumanFace {
  score: number;
  boxScore: number;
  faceScore: number;
  box: [number, number, number, number];
  mesh: [number, number, number?][];
  embedding?: number[];
  real?: number;
  live?: number;
  rotation?: { angle: { roll: number; yaw: number; pitch: number } } | null;
}

interface HumanTensor {
  dispose(): void;
}

interface HumanInstance {
  version: string;
  config: { face: { description: { enabled: boolean } } };
  tf: {
    tensor(values: Uint8Array, shape: number[], dtype: 'int32'): HumanTensor;
    io: { registerLoadRouter(router: (url: string | string[]) => unknown): void };
    engine(): { state: { numTensors: number } };
  };
  models: { models: Record<string, unknown> };
  load(): Promise<void>;
  detect(input: HumanTensor): Promise<{ face: HumanFace[]; error: string | null }>;
}

interface ModelJson {
  modelTopology: unknown;
  format?: string;
  generatedBy?: string;
  convertedBy?: string;
  signature?: unknown;
  userDefinedMetadata?: unknown;
  weightsManifest: { paths: string[]; weights: unknown[] }[];
}

const data = workerData as HumanWorkerData;
const port = parentPort;
if (!port) throw new Error('human-worker must run in a worker thread');

/** Reads a tfjs graph model from disk: Human loads `file://` through fetch, which Node cannot do. */
async function loadModelFromDisk(url: string) {
  const jsonPath = fileURLToPath(url);
  const model = JSON.parse(await readFile(jsonPath, 'utf8')) as ModelJson;
  const weightFiles = await Promise.all(
    model.weightsManifest.flatMap((group) => group.paths).map((file) => readFile(path.join(path.dirname(jsonPath), file))),
  );
  const weights = Buffer.concat(weightFiles);
  return {
    modelTopology: model.modelTopology,
    format: model.format,
    generatedBy: model.generatedBy,
    convertedBy: model.convertedBy,
    signature: model.signature,
    userDefinedMetadata: model.userDefinedMetadata,
    weightSpecs: model.weightsManifest.flatMap((group) => group.weights),
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  };
}

async function loadHuman(): Promise<HumanInstance> {
  const require = createRequire(path.join(data.humanDir, 'package.json'));
  const { Human } = require(path.join(data.humanDir, 'dist', 'human.node-wasm.js')) as {
    Human: new (config: unknown) => HumanInstance;
  };
  const human = new Human(data.config);
  human.tf.io.registerLoadRouter((url) => {
    if (typeof url !== 'string' || !url.startsWith('file://')) return null;
    return { load: () => loadModelFromDisk(url) };
  });
  await human.load();
  // Human logs a failed model load and carries on; detect() would then crash on first use.
  const missing = data.requiredModels.filter((name) => !human.models.models[name]);
  if (missing.length > 0) throw new Error(`face models did not load: ${missing.join(', ')}`);
  return human;
}

function toWorkerFace(face: HumanFace): WorkerFace {
  const mesh = new Float32Array(face.mesh.length * 2);
  face.mesh.forEach((point, index) => {
    mesh[index * 2] = point[0];
    mesh[index * 2 + 1] = point[1];
  });
  const angle = face.rotation?.angle;
  const degrees = (radians: number | undefined) => (radians === undefined ? null : (radians * 180) / Math.PI);
  return {
    score: face.score,
    boxScore: face.boxScore,
    faceScore: face.faceScore,
    box: face.box,
    embedding: face.embedding ? Float32Array.from(face.embedding) : null,
    mesh,
    yawDegrees: degrees(angle?.yaw),
    pitchDegrees: degrees(angle?.pitch),
    rollDegrees: degrees(angle?.roll),
    real: face.real ?? null,
    live: face.live ?? null,
  };
}

async function detect(human: HumanInstance, request: WorkerRequest): Promise<WorkerFace[]> {
  const input = human.tf.tensor(request.rgb, [1, request.height, request.width, 3], 'int32');
  try {
    // No per-call overrides (Human merges them into its config for good, a fail-open trap):
    // the one switch that differs between requests is set explicitly on every request.
    human.config.face.description.enabled = request.describe;
    const result = await human.detect(input);
    if (result.error) throw new Error(result.error);
    return result.face.map(toWorkerFace);
  } finally {
    input.dispose();
  }
}

function reply(message: WorkerReply) {
  const transfer = message.kind === 'faces' ? message.faces.flatMap((face) => [face.mesh.buffer, ...(face.embedding ? [face.embedding.buffer] : [])]) : [];
  port!.postMessage(message, transfer as ArrayBuffer[]);
}

loadHuman().then(
  (human) => {
    reply({ kind: 'ready', version: human.version });
    let queue = Promise.resolve();
    port.on('message', (request: WorkerRequest) => {
      queue = queue.then(() =>
        detect(human, request).then(
          (faces) => reply({ kind: 'faces', id: request.id, faces }),
          (error: unknown) => reply({ kind: 'error', id: request.id, message: error instanceof Error ? error.message : String(error) }),
        ),
      );
    });
  },
  (error: unknown) => reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
);
