import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * One vitest configuration for every package. Test files run in forked processes
 * (PGlite's WASM heap and process-exit hooks stay per file). When TEST_REPORT_DIR is set
 * (by `npm test`) each package also writes a JSON report there, which the runner totals
 * into one closing line for the whole workspace.
 */
export function sharedVitestConfig(packageName: string) {
  const reportDir = process.env.TEST_REPORT_DIR;
  return defineConfig({
    test: {
      include: ['test/**/*.test.ts'],
      pool: 'forks',
      // One test file per core, not vitest's cores − 1: on the 2-core CI machine that default ran
      // every file one after another, and most files spend much of their time waiting on a browser,
      // a child process or a socket. Three per two cores was slower again and broke the timing of
      // the quality hint's budget, so the core count it is.
      maxWorkers: availableParallelism(),
      minWorkers: 1,
      globalSetup: [fileURLToPath(new URL('./vitest.global-setup.ts', import.meta.url))],
      // Deadlines, not delays: a passing test never waits for them, and tests that start service
      // processes (tsx) or a browser need minutes, not seconds, when the machine is loaded.
      testTimeout: 90_000,
      hookTimeout: 180_000,
      // expect.poll waits on a condition; its default of 1 s is a fixed time in disguise and
      // fails a browser test whose page is merely slow on a busy machine.
      expect: { poll: { timeout: 30_000, interval: 50 } },
      reporters: reportDir ? ['default', ['json', { outputFile: join(reportDir, `${packageName.replace(/[@/]/g, '_')}.json`) }]] : ['default'],
    },
  });
}
