// GET /api/v1/rates/latest with the per-IP limiter active (its limits raised so nothing is
// refused) against its references, in alternating rounds (bench/rounds.mjs): the bare Fastify
// process serving the same JSON, and, with Redis, the same bare process running the limiter's
// Lua script first (one EVALSHA over the same keys): the physical limit of a path that must
// count every request in Redis. A third reference counts (in Redis, or embedded in the limiter's
// in-memory store) and also sends the service's own response headers (`bare+redis+headers`,
// `bare+count+headers`): the work the contract itself asks. BENCH_CONTRACT_HEADERS=spec sends only
// the six rate-limit headers the spec names there (`bare+redis+spec-headers`, `bare+count+spec-headers`).
// BENCH_ORIGIN=https://page.example sends `Origin` on every request, as a browser page does, so the
// service and the contract reference both carry the CORS headers such a request is owed.
// One server process is alive at a time; wrk drives each.
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
// roundTripRatio, contractRatio, p99Ms, cpu, invalid, then every round). `pnpm bench` runs it in both modes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWrk } from '../../../bench/load-generator.mjs';
import { killTracked, runCommand, stopChild } from '../../../bench/out-of-process.mjs';
import { bareSide } from '../../../bench/rounds.mjs';
import { benchMode, benchSeconds, bodyFileOf, freshDatabase, headersFileOf, log, measurePath, probe, runBench, serviceSide, startService } from '../../../bench/service-bench.mjs';

const serviceDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATH = '/api/v1/rates/latest';
const { seconds, warmupSeconds } = benchSeconds('node services/fx/bench/rates-latest.mjs');
/** The rate information headers the spec names, in both spellings. */
const SPEC_HEADERS = new Set(['x-rate-limit-limit', 'x-rate-limit-remaining', 'x-rate-limit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
/** BENCH_ORIGIN=<origin>: every request carries `Origin`, as a browser's cross-origin fetch does (CORS headers on). */
const ORIGIN_HEADER = process.env.BENCH_ORIGIN ? { origin: process.env.BENCH_ORIGIN } : {};

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

async function main() {
  ensureWrk();
  log(`fx ${benchMode()}, 3 rounds of ${seconds} s measured (${warmupSeconds} s warm-up each)`);
  if (database) {
    await database.create();
    const { stdout } = await runCommand('fx cli seed', process.execPath, [join(serviceDir, 'dist', 'cli.js'), 'seed'], { env, cwd: serviceDir, timeoutMs: 120_000 });
    log(`seeded: ${stdout.trim().split('\n').pop()}`);
  }
  const startFx = () => startService({ script: join(serviceDir, 'dist', 'server.js'), env, cwd: serviceDir, healthPath: '/api/v1/health' });
  // The bytes the references serve are the service's own answer.
  const first = await startFx();
  const expected = await probe(`${first.origin}${PATH}`, { headers: ORIGIN_HEADER }).finally(() => stopChild(first.child, 10_000));
  const bodyFile = bodyFileOf(workDir, expected.body);
  const bare = { route: PATH, bodyFile, contentType: expected.contentType, packageDir: serviceDir };
  const redis = process.env.REDIS_URL ? { redis: process.env.REDIS_URL, 'redis-prefix': 'fx:rl:' } : undefined;
  // BENCH_CONTRACT_HEADERS=spec: only the six rate-limit headers the spec names, to tell what the others cost.
  const onlySpec = process.env.BENCH_CONTRACT_HEADERS === 'spec';
  const headers = headersFileOf(workDir, onlySpec ? { headers: Object.fromEntries(Object.entries(expected.headers).filter(([name]) => SPEC_HEADERS.has(name))) } : expected);
  const row = await measurePath(`fx GET ${PATH}${process.env.BENCH_ORIGIN ? ' (with Origin)' : ''}`, {
    service: serviceSide(startFx),
    bare: bareSide({ name: 'bare', ...bare }),
    // The count alone (in Redis, or in memory as the embedded service counts): what the headers are measured against.
    roundTrip: bareSide({ name: redis ? 'bare+redis' : 'bare+count', ...bare, options: redis ?? { count: 'memory' } }),
    // The count (in memory when embedded, as the service counts) and the service's own headers: the
    // two rate-limit spellings the spec asks for, RateLimit, CORS, ETag…
    contract: bareSide({ name: `${redis ? 'bare+redis' : 'bare+count'}+${onlySpec ? 'spec-headers' : 'headers'}`, ...bare, options: { ...(redis ?? { count: 'memory' }), headers } }),
    request: (origin) => ({ url: `${origin}${PATH}`, headers: ORIGIN_HEADER }),
    async check(origin, side) {
      const answer = await probe(`${origin}${PATH}`);
      if (side.reference && (!answer.body.equals(expected.body) || answer.contentType !== expected.contentType)) throw new Error(`${side.name} does not serve the service's body`);
    },
    seconds,
    warmupSeconds,
  });
  console.log(JSON.stringify(row));
}

// Setup, then 3 rounds of up to 4 sides (start, warm-up, measure, stop), cleanup: nothing may hang past this.
await runBench(main, {
  budgetSeconds: 300 + 12 * (warmupSeconds + seconds + 60),
  async cleanup() {
    // wrk and whichever server is up, then the database.
    killTracked('SIGKILL');
    await database?.drop();
    rmSync(workDir, { recursive: true, force: true });
  },
});
