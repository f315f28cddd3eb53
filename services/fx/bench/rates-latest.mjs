// GET /api/v1/rates/latest with the per-IP limiter active (its limits raised so nothing is
// refused) against a bare Fastify process serving the same JSON. The service, the bare server and
// the load generator (autocannon, 50 connections, a warm-up of both, then both measured) are three
// separate processes (bench/service-bench.mjs: compareWithBare).
// The service runs as an operator runs it: `node services/fx/dist/server.js`, configured through
// its environment. Embedded (no DATABASE_URL): PGlite in a temporary DATA_DIR, seeded with the
// demo history on its first start. With DATABASE_URL: a fresh database fx_bench_<timestamp> on
// that server (psql on PATH; dropped at the end), loaded with the same demo history by the CLI
// (`dist/cli.js seed`). REDIS_URL selects the Redis limiter store (else the in-memory one).
//
// Usage, after `pnpm build`, from the repository root:
//   node services/fx/bench/rates-latest.mjs [seconds]                  (default 10; embedded)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
//     node services/fx/bench/rates-latest.mjs [seconds]
// Prints one JSON line (bench/service-bench.mjs pathRow: path, mode, serviceRps, bareRps, ratio,
// p99Ms, then the figures of both sides). `pnpm bench` runs it in both modes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killTracked, runCommand, stopChild } from '../../../bench/out-of-process.mjs';
import { benchMode, benchSeconds, compareWithBare, freshDatabase, log, pathRow, runBench, startService } from '../../../bench/service-bench.mjs';

const serviceDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATH = '/api/v1/rates/latest';
const { seconds, warmupSeconds } = benchSeconds('node services/fx/bench/rates-latest.mjs');

const workDir = mkdtempSync(join(tmpdir(), 'fx-bench-rates-latest-'));
const database = process.env.DATABASE_URL ? freshDatabase(process.env.DATABASE_URL, 'fx_bench_') : undefined;
const env = {
  PATH: process.env.PATH,
  LOG_LEVEL: 'warn',
  DATA_DIR: join(workDir, 'data'),
  RATE_LIMIT_ANON_PER_MINUTE: '1000000000',
  RATE_LIMIT_ANON_PER_HOUR: '1000000000',
  ...(database ? { DATABASE_URL: database.url, SECRETS_KEY: randomBytes(32).toString('hex') } : {}),
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
};
let service;

async function main() {
  log(`fx ${benchMode()}, ${seconds} s measured (${warmupSeconds} s warm-up)`);
  if (database) {
    await database.create();
    const { stdout } = await runCommand('fx cli seed', process.execPath, [join(serviceDir, 'dist', 'cli.js'), 'seed'], { env, cwd: serviceDir, timeoutMs: 120_000 });
    log(`seeded: ${stdout.trim().split('\n').pop()}`);
  }
  const started = await startService({ script: join(serviceDir, 'dist', 'server.js'), env, cwd: serviceDir, healthPath: '/api/v1/health', onSpawn: (child) => (service = child) });
  log(`service ready at ${started.origin} (pid ${service.pid})`);
  const comparison = await compareWithBare({ service, url: `${started.origin}${PATH}`, route: PATH, workDir, packageDir: serviceDir, seconds, warmupSeconds });
  console.log(JSON.stringify({ ...pathRow(`fx GET ${PATH}`, comparison), ...comparison, serviceWarnings: service.output.lines }));
}

// Setup, 2 warm-ups, 2 measured runs, cleanup: nothing may hang past this.
await runBench(main, {
  budgetSeconds: 300 + 2 * (warmupSeconds + 30) + 2 * (seconds + 30),
  async cleanup() {
    // autocannon and the bare server first, then the service, then its database.
    killTracked('SIGKILL', [service]);
    if (service) await stopChild(service, 10_000);
    killTracked('SIGKILL');
    await database?.drop();
    rmSync(workDir, { recursive: true, force: true });
  },
});
