import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root, found by walking up from this module to the folder holding
 * pnpm-workspace.yaml. The embedded data directory defaults to `<root>/.data` so the
 * service, its CLI and the tests agree on one location whatever the working directory.
 * Outside a checkout (a container built with `pnpm deploy`) there is no workspace file:
 * we fall back to the working directory, and deployments set DATA_DIR explicitly.
 */
export function findRepositoryRoot(startAt: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let current = startAt;
  for (;;) {
    if (existsSync(join(current, 'pnpm-workspace.yaml'))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** Absolute data directory: DATA_DIR as given (relative to the working directory), else `<repo>/.data`. */
export function resolveDataDir(configured: string | undefined, cwd: string = process.cwd()): string {
  if (configured && configured.trim() !== '') {
    return isAbsolute(configured) ? configured : resolve(cwd, configured);
  }
  return join(findRepositoryRoot() ?? cwd, '.data');
}
