/**
 * Where Human, its bundled models and the tfjs wasm binaries are on disk, and the one fixed
 * Human configuration. Everything is read from node_modules: nothing is fetched, ever (Human's
 * defaults point wasm and models at a CDN).
 */
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The model files the face check needs, by their key in human.models.models and file name. */
export const REQUIRED_MODELS = [
  { key: 'blazeface', file: 'blazeface' },
  { key: 'facemesh', file: 'facemesh' },
  { key: 'faceres', file: 'faceres' },
  // Refines the eye contour: the mesh alone at 105–165 px faces moves its lids by only 40 % in a blink.
  { key: 'iris', file: 'iris' },
] as const;

const WASM_FILE = 'tfjs-backend-wasm-simd.wasm';

export interface HumanFiles {
  humanDir: string;
  modelsDir: string;
  wasmDir: string;
}

/** Package locations; throws when a package is not installed. */
export function locateHumanFiles(): HumanFiles {
  // The package's `exports` hides package.json; its CommonJS entry sits in dist/.
  const humanDir = path.resolve(path.dirname(require.resolve('@vladmandic/human')), '..');
  const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
  return { humanDir, modelsDir: path.join(humanDir, 'models'), wasmDir };
}

/** Missing files, in plain words; [] when everything Human needs is on disk. */
export async function missingHumanFiles(): Promise<string[]> {
  let files: HumanFiles;
  try {
    files = locateHumanFiles();
  } catch {
    return ['the face model package (@vladmandic/human or @tensorflow/tfjs-backend-wasm) is not installed'];
  }
  const wanted = [
    path.join(files.humanDir, 'dist', 'human.node-wasm.js'),
    path.join(files.wasmDir, WASM_FILE),
    ...REQUIRED_MODELS.flatMap(({ file }) => [path.join(files.modelsDir, `${file}.json`), path.join(files.modelsDir, `${file}.bin`)]),
  ];
  const problems: string[] = [];
  for (const file of wanted) {
    try {
      await access(file);
    } catch {
      problems.push(`a face model file is missing: ${path.basename(file)}`);
    }
  }
  return problems;
}

/**
 * The only configuration Human ever sees. Caching between calls is off (cacheSensitivity 0,
 * skipFrames 0): on video frames a cached box or descriptor would make a still photo look
 * perfectly stable and hide a second face. Up to 3 faces are detected so a second person in
 * the selfie or video is seen, not silently dropped.
 */
export function humanConfig(files: HumanFiles) {
  return {
    backend: 'wasm',
    wasmPath: `${files.wasmDir}${path.sep}`,
    wasmPlatformFetch: false,
    modelBasePath: `file://${files.modelsDir}/`,
    cacheModels: false,
    debug: false,
    async: false,
    warmup: 'none',
    cacheSensitivity: 0,
    filter: { enabled: false },
    gesture: { enabled: false },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    segmentation: { enabled: false },
    face: {
      enabled: true,
      detector: { maxDetected: 3, skipFrames: 0, skipTime: 0, minConfidence: 0.2, rotation: true, return: false },
      mesh: { enabled: true },
      attention: { enabled: false },
      iris: { enabled: true },
      emotion: { enabled: false },
      description: { enabled: true, skipFrames: 0, skipTime: 0 },
      antispoof: { enabled: false },
      liveness: { enabled: false },
    },
  };
}
