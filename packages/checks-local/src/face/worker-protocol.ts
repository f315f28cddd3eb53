/** Messages between the face client (main thread) and human-worker.ts. Types only. */

export interface HumanWorkerData {
  humanDir: string;
  /** Keys of human.models.models that must be loaded, or the worker refuses to start. */
  requiredModels: string[];
  config: unknown;
}

/** One RGB image, 3 bytes a pixel, row by row. */
export interface RgbImage {
  width: number;
  height: number;
  rgb: Uint8Array;
}

export interface WorkerRequest extends RgbImage {
  id: number;
  /** Compute the face descriptor (faceres, about 120 ms a face) or only detect and mesh (about 70 ms). */
  describe: boolean;
}

export interface WorkerFace {
  /** Human's overall score, and its detector and mesh scores. */
  score: number;
  boxScore: number;
  faceScore: number;
  /** x, y, width, height in pixels. */
  box: [number, number, number, number];
  /** The faceres descriptor (1024 numbers when it worked), or null. */
  embedding: Float32Array | null;
  /** Mesh landmarks in pixels, x0, y0, x1, y1, … */
  mesh: Float32Array;
  yawDegrees: number | null;
  pitchDegrees: number | null;
  rollDegrees: number | null;
  real: number | null;
  live: number | null;
}

export type WorkerReply =
  | { kind: 'ready'; version: string }
  | { kind: 'failed'; message: string }
  | { kind: 'faces'; id: number; faces: WorkerFace[] }
  | { kind: 'error'; id: number; message: string };
