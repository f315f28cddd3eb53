#!/usr/bin/env node
// `pnpm bench`: every path bench of the services and the start-up bench, one after the other, each
// in its own process and each measuring out of process: the built service and its references
// (bare Fastify serving the same bytes, and the same plus the path's unavoidable round trip) each
// started for its turn in three alternating rounds, with wrk as the load generator in its own
// process at 50 connections (bench/rounds.mjs). It builds nothing: run `pnpm build` first (it
// stops if a dist/ is missing). Prints one JSON line per path and mode on stdout:
//   {path, mode, serviceRps, bareRps, ratio, ratioRange, roundTripRatio, contractRatio, p99Ms, goal, met, beyondReach, invalid, …}
// and one per start: {startup, mode, start, readyMs, rssMb, goal, met}. `goal` is null where none
// is set; `met` is null when the run does not count (`invalid` says why: an under-driven
// reference, a saturated load generator, failed requests), false when a goal is missed.
// `beyondReach` lists the goals that ask more than a reference doing only work the service must do
// (its round trip; the count and headers the contract asks) reached in the same run.
// The machine's 1-minute load average is printed before and after, and with every row.
// The benches' own logs and summaries go to stderr.
// Modes: `embedded` (no DATABASE_URL, no REDIS_URL: every service gets its own temporary DATA_DIR)
// and `postgres+redis`: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), the server
// on which each bench creates and drops a fresh database of its own (psql on PATH), and REDIS_URL
// (default redis://127.0.0.1:6379). If either is unreachable, the postgres+redis rows are skipped,
// each with a line {path, mode, skipped: why}.
// Usage: pnpm bench [seconds]   (measured seconds of each round, default 10; warm-up 5 s)
// Exit code 1 when a bench failed (a line {path, mode, failed: why} for each of its rows).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { collectLines, killTracked, load1m, root, spawnTracked } from './out-of-process.mjs';
import { benchSeconds, psql } from './service-bench.mjs';

const { seconds } = benchSeconds('pnpm bench');
const EMBEDDED = 'embedded';
const POSTGRES = 'postgres+redis';
const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

// The goals by path and mode: a minimum ratio to the bare reference (`ratio`), to the reference
// with the path's round trip (`roundTripRatio`: bare+pglite, bare+seal) and to the reference that
// does the contract's work (`contractRatio`: the round trip plus the count and the response
// headers the contract asks); `headersRatio` is what those headers cost the contract reference
// itself (its share of the round-trip reference); a maximum p99 and a minimum of requests per second.
const FX_LATEST = { [EMBEDDED]: { contractRatio: 0.9, headersRatio: 0.9 }, [POSTGRES]: { contractRatio: 0.9, headersRatio: 0.9 } };
const IDENTITY_READ = { [EMBEDDED]: { roundTripRatio: 0.9 }, [POSTGRES]: { contractRatio: 0.85, p99Ms: 15 } };
const GOALS = {
  'fx GET /api/v1/rates/latest': FX_LATEST,
  'fx GET /api/v1/rates/latest (with Origin)': FX_LATEST,
  'identity GET /api/partner/v1/oauth/clients': IDENTITY_READ,
  'identity GET /api/partner/v1/verifications/{id}': IDENTITY_READ,
  'identity POST /api/partner/v1/verifications': { [POSTGRES]: { rps: 2500, p99Ms: 50 } },
  'identity POST /api/capture/v1/evidence (2 MB image)': { [POSTGRES]: { roundTripRatio: 0.85 } },
};
// Start-up: a warm start (the data directory or database exists) under 1 s, idle RSS on PostgreSQL under 150 MB.
const WARM_START_MS = 1000;
const POSTGRES_RSS_MB = 150;

const benches = [
  { script: 'services/fx/bench/rates-latest.mjs', paths: ['fx GET /api/v1/rates/latest'] },
  // The same path as a browser page asks it: `Origin` on every request, so the CORS headers are owed.
  { script: 'services/fx/bench/rates-latest.mjs', paths: ['fx GET /api/v1/rates/latest (with Origin)'], env: { BENCH_ORIGIN: 'https://page.example' } },
  { script: 'services/identity/bench/oauth-clients.mjs', paths: ['identity GET /api/partner/v1/oauth/clients'] },
  { script: 'services/identity/bench/verifications.mjs', paths: ['identity POST /api/partner/v1/verifications', 'identity GET /api/partner/v1/verifications/{id}'] },
  { script: 'services/identity/bench/evidence-upload.mjs', paths: ['identity POST /api/capture/v1/evidence (2 MB image)'], seconds: 5 },
];

const redact = (url) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
const print = (line) => console.log(JSON.stringify(line));

// ---- before anything runs: the builds, PostgreSQL and Redis ----

/** Newest modification time (ms) of the files below `dir`, 0 when there are none. */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

function checkBuilds() {
  const packages = readdirSync(join(root, 'packages')).map((name) => join('packages', name));
  const missing = [...['services/fx/dist/server.js', 'services/fx/dist/cli.js', 'services/identity/dist/server.js'], ...packages.map((dir) => join(dir, 'dist', 'index.js'))].filter(
    (file) => !existsSync(join(root, file)),
  );
  if (missing.length > 0) {
    console.error(`pnpm bench measures the built services, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: run \`pnpm build\` first.`);
    process.exit(1);
  }
  const stale = [...packages, 'services/fx', 'services/identity'].filter((dir) => newest(join(root, dir, 'src')) > newest(join(root, dir, 'dist')));
  if (stale.length > 0) console.error(`[bench] warning: src/ is newer than dist/ in ${stale.join(', ')}; run \`pnpm build\` to measure the current code`);
}

/** Why PostgreSQL at DATABASE_URL cannot be used, or null when `select 1` answers. */
async function postgresProblem() {
  try {
    await psql('reachable', databaseUrl, 'select 1', 20_000);
    return null;
  } catch (error) {
    return `PostgreSQL at ${redact(databaseUrl)} is not reachable (${error.message.split('\n')[0]})`;
  }
}

/** Why Redis at REDIS_URL cannot be used, or null when it answers PING (or asks for a password). */
function redisProblem() {
  const { hostname, port } = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (problem) => {
      socket.destroy();
      resolve(problem && `Redis at ${redact(redisUrl)} is not reachable (${problem})`);
    };
    socket.setTimeout(5000, () => done('no answer within 5 s'));
    socket.once('error', (error) => done(error.message));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString()) ? null : `PING answered ${JSON.stringify(data.toString().trim())}`));
  });
}

// ---- the benches ----

function goalOf(row) {
  if (row.startup !== undefined) {
    const goals = [];
    if (row.start === 'warm') goals.push([`ready < ${WARM_START_MS} ms`, row.readyMs < WARM_START_MS]);
    if (row.mode.startsWith('postgres')) goals.push([`RSS < ${POSTGRES_RSS_MB} MB`, row.rssMb < POSTGRES_RSS_MB]);
    return goals;
  }
  const goal = GOALS[row.path]?.[row.mode];
  if (!goal) return [];
  const goals = [];
  if (goal.ratio !== undefined) goals.push([`ratio >= ${goal.ratio}`, row.ratio >= goal.ratio]);
  if (goal.roundTripRatio !== undefined) goals.push([`ratio to ${row.roundTripReference ?? 'the round-trip reference'} >= ${goal.roundTripRatio}`, row.roundTripRatio >= goal.roundTripRatio]);
  if (goal.contractRatio !== undefined) goals.push([`ratio to ${row.contractReference ?? 'the contract reference'} >= ${goal.contractRatio}`, row.contractRatio >= goal.contractRatio]);
  if (goal.headersRatio !== undefined) {
    goals.push([`${row.contractReference ?? 'the contract reference'} >= ${goal.headersRatio} of ${row.roundTripReference ?? 'the round-trip reference'}`, row.contractToRoundTrip >= goal.headersRatio]);
  }
  if (goal.rps !== undefined) goals.push([`>= ${goal.rps} req/s`, row.serviceRps >= goal.rps]);
  if (goal.p99Ms !== undefined) goals.push([`p99 < ${goal.p99Ms} ms`, row.p99Ms < goal.p99Ms]);
  return goals;
}

/**
 * The goals of a row that ask more than a reference doing only required work reached in the same
 * run: no service can beat a reference that does a part of its work and nothing else. The bound
 * on the ratio to bare is the contract reference's (else the round trip's, which an upload must
 * make), on the ratio to the round-trip reference the contract reference's.
 */
function beyondReach(row, goal) {
  if (!goal) return [];
  const below = (reached, asked) => asked !== undefined && typeof reached === 'number' && reached < asked;
  const [toBare, toBareBy] = typeof row.contractToBare === 'number' ? [row.contractToBare, row.contractReference] : [row.roundTripToBare, row.roundTripReference];
  const beyond = [];
  if (below(toBare, goal.ratio)) beyond.push(`ratio >= ${goal.ratio}: ${toBareBy} itself reached ${toBare} of bare`);
  if (below(row.contractToRoundTrip, goal.roundTripRatio)) {
    beyond.push(`ratio to ${row.roundTripReference} >= ${goal.roundTripRatio}: ${row.contractReference} itself reached ${row.contractToRoundTrip} of it`);
  }
  return beyond;
}

/** The line printed for one row a bench reported. */
function reported(row) {
  const goals = goalOf(row);
  const goal = goals.length > 0 ? goals.map(([text]) => text).join(', ') : null;
  if (row.startup !== undefined) return { startup: row.startup, mode: row.mode, start: row.start, readyMs: row.readyMs, rssMb: row.rssMb, goal, met: goal ? goals.every(([, met]) => met) : null };
  const counts = row.invalid.length === 0;
  const met = goal && counts ? goals.every(([, ok]) => ok) : null;
  const { path, mode, serviceRps, bareRps, ratio, ratioRange, roundTripReference, roundTripRps, roundTripRatio, roundTripRatioRange, p50Ms, p99Ms, cpuPercent, loadGeneratorCpuPercent, load1m: load, invalid } = row;
  const { roundTripToBare, contractReference, contractRps, contractRatio, contractRatioRange, contractToBare, contractToRoundTrip } = row;
  const beyond = beyondReach(row, GOALS[row.path]?.[row.mode]);
  return {
    path,
    mode,
    serviceRps,
    bareRps,
    ratio,
    ratioRange,
    roundTripReference,
    roundTripRps,
    roundTripRatio,
    roundTripRatioRange,
    roundTripToBare,
    ...(contractReference ? { contractReference, contractRps, contractRatio, contractRatioRange, contractToBare, contractToRoundTrip } : {}),
    p50Ms,
    p99Ms,
    goal,
    met,
    ...(beyond.length > 0 ? { beyondReach: beyond } : {}),
    cpuPercent,
    loadGeneratorCpuPercent,
    load1m: load,
    invalid,
  };
}

let interrupted = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    // The benches run in process groups of their own: they clean up (databases, directories) on SIGTERM.
    interrupted = signal;
    console.error(`[bench] ${signal}: stopping the running bench`);
    killTracked('SIGTERM');
  });
}

/**
 * `node <script> <args>` with `env`; prints each row it reports on stdout as it comes (and its
 * other output on stderr). Resolves with `null`, or why it failed.
 */
function runBenchScript(script, args, env) {
  return new Promise((resolve) => {
    const child = spawnTracked(process.execPath, [join(root, script), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectLines(child, {
      keep: 5,
      onLine(line, stream) {
        let row = null;
        try {
          row = stream === 'stdout' && line.startsWith('{') ? JSON.parse(line) : null;
        } catch {
          // not a row
        }
        if (row && (row.path !== undefined || row.startup !== undefined)) print(reported(row));
        else console.error(stream === 'stdout' ? `  ${line}` : line);
      },
    });
    child.once('error', (error) => resolve(error.message));
    child.once('close', (code, signal) => resolve(code === 0 ? null : `exit ${code ?? signal}: ${output.tail.at(-1) ?? ''}`));
  });
}

const started = Date.now();
checkBuilds();
const skipReason = (await postgresProblem()) ?? (await redisProblem());
if (skipReason) console.error(`[bench] ${skipReason}: the ${POSTGRES} rows are skipped`);
const envFor = (mode) => {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  // A run's own counter namespace: its floods must not rate-limit whatever else shares this Redis (a test run, say).
  return mode === EMBEDDED ? env : { ...env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: `bench:${process.pid}:${started}:` };
};

let failures = 0;
console.error(`[bench] 1-minute load average before: ${load1m()} (${cpus().length} CPUs)`);
for (const { script, paths, seconds: benchSecondsOverride, env: benchEnv } of benches) {
  for (const mode of [EMBEDDED, POSTGRES]) {
    if (interrupted) break;
    if (mode === POSTGRES && skipReason) {
      for (const path of paths) print({ path, mode, skipped: skipReason });
      continue;
    }
    const measured = Math.min(seconds, benchSecondsOverride ?? seconds);
    console.error(`[bench] ${script}, ${mode}, 3 rounds of ${measured} s measured`);
    const failed = await runBenchScript(script, [String(measured)], { ...envFor(mode), ...benchEnv });
    if (failed) {
      failures += 1;
      for (const path of paths) print({ path, mode, failed: failed.slice(0, 500) });
    }
  }
}
if (!interrupted) {
  // Start-up: embedded always, PostgreSQL + Redis when reachable (startup.mjs reads DATABASE_URL).
  console.error('[bench] bench/startup.mjs');
  const failed = await runBenchScript('bench/startup.mjs', [], envFor(skipReason ? EMBEDDED : POSTGRES));
  if (skipReason) for (const service of ['identity', 'fx']) print({ startup: service, mode: POSTGRES, skipped: skipReason });
  if (failed) {
    failures += 1;
    print({ startup: 'identity, fx', failed: failed.slice(0, 500) });
  }
}
console.error(`[bench] 1-minute load average after: ${load1m()}`);
console.error(`[bench] done in ${Math.round((Date.now() - started) / 1000)} s${failures ? `, ${failures} bench run(s) failed` : ''}${interrupted ? `, interrupted (${interrupted})` : ''}`);
process.exit(interrupted ? 130 : failures ? 1 : 0);
