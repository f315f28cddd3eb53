import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One scratch directory per vitest run, handed to every test file (forked after this runs) as
 * SVC_TEST_RUN_DIR: what a file builds that the next would build identically — the migrated
 * PGlite snapshot, the Vite apps — is made once there and removed when the run ends.
 */
export default function setup(): () => void {
  if (process.env.SVC_TEST_RUN_DIR) return () => undefined; // an outer run owns it
  const runDir = mkdtempSync(join(tmpdir(), 'svc-test-run-'));
  mkdirSync(join(runDir, 'vite'));
  process.env.SVC_TEST_RUN_DIR = runDir;
  return () => {
    rmSync(runDir, { recursive: true, force: true });
    delete process.env.SVC_TEST_RUN_DIR;
  };
}
