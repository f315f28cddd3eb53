/**
 * Where the OCR's model files are, and what is missing. tesseract.js reads its English data from
 * a local folder we name (with no folder it would fetch from a CDN) and its wasm core from
 * tesseract.js-core; both come from npm, pinned in package.json. A missing file is checked for
 * here, before any worker starts, because tesseract.js handles a bad path badly: it either kills
 * the process with an uncaught error or never settles.
 */
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The legacy engine needs the combined legacy + LSTM data (4.0.0, 10.9 MB); the LSTM engine runs
 * on the LSTM-only "best_int" data (2.9 MB) with the LSTM-only wasm core, which keeps that worker
 * about 60-85 MB smaller and read the synthetic set as well.
 */
export const ENGLISH_DATA = {
  packageName: '@tesseract.js-data/eng',
  file: 'eng.traineddata.gz',
  folders: { legacy: '4.0.0', lstm: '4.0.0_best_int' },
} as const;
/** The cores getCore may pick, by CPU features (relaxed SIMD, SIMD, none) and engine (legacy-capable or LSTM-only). */
const CORE_FILES = ['tesseract-core-relaxedsimd', 'tesseract-core-relaxedsimd-lstm', 'tesseract-core-simd', 'tesseract-core-simd-lstm', 'tesseract-core', 'tesseract-core-lstm'];

/** Finds an installed package's folder, or null; tests pass one that hides a package. */
export type LocatePackage = (packageName: string) => string | null;

export const locateInstalledPackage: LocatePackage = (packageName) => {
  try {
    return path.dirname(require.resolve(`${packageName}/package.json`));
  } catch {
    return null;
  }
};

/** The folder holding the eng.traineddata.gz an engine loads, or null when the package is not installed. */
export function englishDataFolder(kind: 'legacy' | 'lstm', packageFolder: LocatePackage = locateInstalledPackage): string | null {
  const folder = packageFolder(ENGLISH_DATA.packageName);
  return folder === null ? null : path.join(folder, ENGLISH_DATA.folders[kind]);
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** [] when every file the OCR loads is present; else one sentence per problem, without paths. */
export async function ocrModelProblems(packageFolder: LocatePackage = locateInstalledPackage): Promise<string[]> {
  const problems: string[] = [];
  for (const kind of ['legacy', 'lstm'] as const) {
    const english = englishDataFolder(kind, packageFolder);
    if (english === null || !(await exists(path.join(english, ENGLISH_DATA.file)))) {
      problems.push(`tesseract English data (${ENGLISH_DATA.packageName} ${ENGLISH_DATA.folders[kind]}) is missing`);
    }
  }
  if (packageFolder('tesseract.js') === null) problems.push('tesseract.js is missing');
  const core = packageFolder('tesseract.js-core');
  if (core === null) {
    problems.push('the tesseract wasm core (tesseract.js-core) is missing');
  } else {
    for (const name of CORE_FILES) {
      const present = (await exists(path.join(core, `${name}.js`))) && ((await exists(path.join(core, `${name}.wasm.js`))) || (await exists(path.join(core, `${name}.wasm`))));
      if (!present) problems.push(`the tesseract wasm core file ${name} (tesseract.js-core) is missing`);
    }
  }
  return problems;
}
