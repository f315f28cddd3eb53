// What a bench of one built service needs on top of bench/out-of-process.mjs, shared by the path
// benches (services/fx/bench/rates-latest.mjs, services/identity/bench/oauth-clients.mjs and
// verifications.mjs, through identity-bench-setup.mjs), bench/startup.mjs and bench/run-all.mjs:
//   - the seconds argument (benchSeconds) and the run's mode, read from the environment as the
//     service reads it (benchMode: `embedded` without DATABASE_URL and REDIS_URL, `postgres+redis`
//     with both);
//   - a fresh PostgreSQL database per run on the server DATABASE_URL names (freshDatabase, with
//     psql; the database named in the URL is only connected to, to create and drop the fresh one);
//   - the built service as an operator runs it (startService: `node dist/server.js`, configured
//     through its environment alone, on a free loopback port, ready once its health route answers);
//   - one path of the service against its references (the bare Fastify process serving the same
//     bytes, and the same plus the path's unavoidable round trip) in alternating rounds with wrk at
//     50 connections (measurePath, bench/rounds.mjs), and the JSON line that reports it (pathRow);
//   - cleanup however a run ends: success, failure, a signal or its watchdog (runBench).
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectLines, freePort, root, runCommand, spawnTracked, stopChild, waitForHttp } from './out-of-process.mjs';
import { alternatingRounds, roundRatios } from './rounds.mjs';

/** Connections of every load-generator run of a path bench. */
export const CONNECTIONS = 50;

export const log = (message) => console.error(`[bench] ${message}`);

/**
 * The bench's only argument, the measured seconds of each run (a whole number, 1-300, `fallback`
 * when absent); prints the usage line (`usage`, the bench's command) and exits 2 on anything else.
 * Returns `{seconds, warmupSeconds}` (the warm-up: 5 s, or `seconds` when shorter).
 */
export function benchSeconds(usage, fallback = 10) {
  const seconds = Number(process.argv[2] ?? fallback);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300 || process.argv.length > 3) {
    console.error(`usage: ${usage} [seconds, 1-300, default ${fallback}]`);
    process.exit(2);
  }
  return { seconds, warmupSeconds: Math.min(seconds, 5) };
}

/** `embedded` or `postgres`, then `+redis` with REDIS_URL: what the service runs on with `env`. */
export function benchMode(env = process.env) {
  const database = env.DATABASE_URL ? 'postgres' : 'embedded';
  return env.REDIS_URL ? `${database}+redis` : database;
}

// ---- PostgreSQL: a fresh database per run ----

/** `sql` through psql on the database at `url`; resolves with its unaligned, tab-separated output. */
export function psql(label, url, sql, timeoutMs = 60_000) {
  return runCommand(`psql (${label})`, 'psql', ['-X', '-w', '-q', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], {
    env: { ...process.env, PGCONNECT_TIMEOUT: '10' },
    timeoutMs,
  });
}

/**
 * A database `<prefix><timestamp>_<pid>` on the server `serverUrl` names: `url` is its connection
 * string, `create()` creates it, `query(label, sql)` reads it (rows of text fields), `drop()` drops
 * it if it was created (a failure is logged, not thrown: drop runs in cleanups).
 */
export function freshDatabase(serverUrl, prefix) {
  const name = `${prefix}${Date.now()}_${process.pid}`;
  const target = new URL(serverUrl);
  target.pathname = `/${name}`;
  const url = target.toString();
  let created = false;
  return {
    name,
    url,
    async create() {
      await psql('create database', serverUrl, `create database ${name}`);
      created = true;
      log(`created database ${name}`);
    },
    async query(label, sql) {
      const { stdout } = await psql(label, url, sql);
      return stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('\t'));
    },
    async drop() {
      if (!created) return;
      created = false;
      try {
        await psql('drop database', serverUrl, `drop database if exists ${name} with (force)`);
      } catch (error) {
        log(`could not drop database ${name}: ${error.message}`);
      }
    },
  };
}

// ---- the service, as an operator runs it ----

/**
 * `node <script>` (a service's dist/server.js) in `cwd`, configured by `env` alone plus HOST and
 * PORT (a free loopback port). `onSpawn(child)` sees the process at once, so that a cleanup can
 * stop it even if it never gets ready. Resolves with `{child, origin}` once GET `healthPath`
 * answers 200; `child.output` holds its log lines (count and tail).
 */
const BENCH_STARTED = Date.now();

export async function startService({ script, env, healthPath, cwd = root, onSpawn }) {
  const port = await freePort();
  // BENCH_CPU_PROF_DIR=<dir>: each service writes a V8 CPU profile there when it stops (what stands between it and the bare figure).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  // BENCH_PERF_DIR=<dir>: Linux perf samples the service while it is up (kernel and native frames
  // too, which a V8 profile folds into the JS function that made the system call), with JIT names.
  if (process.env.BENCH_PERF_DIR) profile.push('--perf-basic-prof');
  // Rate-limit counters in a namespace of this bench process: a shared Redis keeps the windows of
  // earlier runs and of other users of 127.0.0.1, which would answer a bench's calls with 429.
  const namespaced = { RATE_LIMIT_KEY_PREFIX: `bench:${process.pid}:${BENCH_STARTED}:`, ...env };
  const child = spawnTracked(process.execPath, [...profile, script], { cwd, env: { ...namespaced, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  onSpawn?.(child);
  child.output = collectLines(child);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}${healthPath}`, { child, timeoutMs: 90_000, describe: () => `:\n${child.output.tail.join('\n')}` });
  if (process.env.BENCH_PERF_DIR) recordPerf(child, process.env.BENCH_PERF_DIR);
  return { child, origin };
}

/** `perf record` attached to `child` until it exits: `<dir>/service-<pid>.perf`, read with `perf report -i`. */
function recordPerf(child, dir) {
  mkdirSync(dir, { recursive: true });
  const output = join(dir, `service-${child.pid}.perf`);
  const perf = spawn('perf', ['record', '-e', 'cpu-clock', '-F', '999', '-g', '-p', String(child.pid), '-o', output], { stdio: 'ignore' });
  perf.on('error', (error) => log(`BENCH_PERF_DIR: perf did not start (${error.message}); apt-get install linux-perf`));
  log(`perf records pid ${child.pid} into ${output}`);
}

// ---- one path against its references, in alternating rounds ----

/** A side of alternatingRounds that starts the service (`startProcess() -> {child, origin}`) for its turn. */
export function serviceSide(startProcess, name = 'service') {
  return {
    name,
    reference: false,
    async start() {
      const { child, origin } = await startProcess();
      return { pid: child.pid, origin, stop: () => stopChild(child, 10_000) };
    },
  };
}

/**
 * The answer the service gives `url` (`method`, `headers`, `body`), which must have `status`:
 * {body (Buffer), contentType, headers (its response headers, names lower-case)}. A load test
 * of 401s or 429s would measure nothing.
 */
export async function probe(url, { method = 'GET', headers = {}, body, status = 200 } = {}) {
  const answer = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(15_000) });
  const bytes = Buffer.from(await answer.arrayBuffer());
  if (answer.status !== status) throw new Error(`${method} ${new URL(url).pathname}: ${answer.status} (expected ${status}) ${bytes.toString('utf8', 0, 500)}`);
  return { body: bytes, contentType: answer.headers.get('content-type') ?? 'application/json', headers: Object.fromEntries(answer.headers) };
}

/** Headers every Node server writes itself, or that describe the body or the connection: a bare side sends its own. */
const FRAMING_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The service's own response headers (from `probe`), as the JSON file a bare side's
 * `--headers=<file>` sends with every answer: the same names and value lengths, so the reference
 * builds, checks and writes the same header bytes. Returns its path.
 */
export function headersFileOf(workDir, answer) {
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !FRAMING_HEADERS.has(name)));
  return bodyFileOf(workDir, Buffer.from(JSON.stringify(headers)), 'bare-headers');
}

/** Writes `bytes` to a fresh file in `workDir` (a bare side's body); returns its path. */
export function bodyFileOf(workDir, bytes, label = 'bare-body') {
  const file = join(workDir, `${label}-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  writeFileSync(file, bytes);
  return file;
}

/**
 * Runs alternatingRounds (bench/rounds.mjs) for one path: `service` (serviceSide) against `bare`
 * and, when given, `roundTrip` (the bare reference that also makes the path's round trip) and
 * `contract` (the reference that makes every round trip the service makes and sends the service's
 * own response headers: all the work the route cannot drop without breaking its contract).
 * Resolves with the JSON line of the path (pathRow) plus every round's figures.
 */
export async function measurePath(path, { service, bare, roundTrip, contract, request, check, seconds, warmupSeconds, rounds = 3 }) {
  const sides = [bare, service, roundTrip, contract].filter(Boolean);
  const result = await alternatingRounds({ sides, request, check, rounds, seconds, warmupSeconds, connections: CONNECTIONS, log });
  for (const reason of result.invalid) log(`invalid: ${reason}`);
  return { ...pathRow(path, result, { service: service.name, bare: bare?.name, roundTrip: roundTrip?.name, contract: contract?.name }), result };
}

/**
 * The JSON line of one path: `path` (service, method and path), the mode, the service's and the
 * references' requests per second (medians of the rounds), the median ratio to each with its
 * min-max, the references' own ratios (`roundTripToBare`, `contractToBare`, `contractToRoundTrip`:
 * medians over the rounds), the service's p50/p99 (ms, medians), its failed requests, each server's CPU use, and
 * `invalid` (why the run does not count; empty when it does). `names` are the sides' names.
 */
export function pathRow(path, result, names) {
  const side = (name) => (name ? result.sides[name] : undefined);
  const service = side(names.service);
  const ratio = (reference) => (reference ? result.ratios[`${names.service}/${reference}`] : undefined);
  const toBare = ratio(names.bare);
  const toRoundTrip = ratio(names.roundTrip);
  const toContract = ratio(names.contract);
  // What a reference's own work leaves of another, round by round: no service doing that work does better.
  const sideTo = (name, reference) => (side(name) && side(reference) ? roundRatios(side(name).runs, side(reference).runs).median : null);
  const failed = (key) => service.runs.reduce((sum, run) => sum + (run[key] ?? 0), 0);
  return {
    path,
    mode: benchMode(),
    serviceRps: service.rps,
    bareRps: side(names.bare)?.rps ?? null,
    ratio: toBare?.median ?? null,
    ratioRange: toBare ? [toBare.min, toBare.max] : null,
    roundTripReference: names.roundTrip ?? null,
    roundTripRps: side(names.roundTrip)?.rps ?? null,
    roundTripRatio: toRoundTrip?.median ?? null,
    roundTripRatioRange: toRoundTrip ? [toRoundTrip.min, toRoundTrip.max] : null,
    roundTripToBare: sideTo(names.roundTrip, names.bare),
    contractReference: names.contract ?? null,
    contractRps: side(names.contract)?.rps ?? null,
    contractRatio: toContract?.median ?? null,
    contractRatioRange: toContract ? [toContract.min, toContract.max] : null,
    contractToBare: sideTo(names.contract, names.bare),
    contractToRoundTrip: sideTo(names.contract, names.roundTrip),
    p50Ms: service.p50,
    p99Ms: service.p99,
    non2xx: failed('non2xx'),
    errors: failed('errors'),
    timeouts: failed('timeouts'),
    cpuPercent: Object.fromEntries(Object.entries(result.sides).map(([name, figures]) => [name, figures.serverCpuPercent])),
    loadGeneratorCpuPercent: Math.max(...Object.values(result.sides).map((figures) => figures.loadCpuPercent)),
    rounds: result.rounds,
    load1m: result.load1m,
    invalid: result.invalid,
  };
}

// ---- the run and its cleanup ----

/**
 * Runs `main`, then `cleanup()` once, however the run ends: `main` resolving (exit code 1 when it
 * resolves false) or failing, SIGINT/SIGTERM/SIGHUP, an uncaught error, or the watchdog after
 * `budgetSeconds`.
 */
export async function runBench(main, { budgetSeconds, cleanup }) {
  let cleaning;
  let interrupted = false;
  const cleanupOnce = () => (cleaning ??= cleanup());

  async function fail(error) {
    if (!interrupted) log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    await cleanupOnce();
    process.exit(1);
  }

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      interrupted = true;
      log(`${signal}: stopping`);
      void cleanupOnce().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  process.on('uncaughtException', (error) => void fail(error));
  process.on('unhandledRejection', (error) => void fail(error));
  const watchdog = setTimeout(() => void fail(new Error(`the run took longer than ${budgetSeconds} s`)), budgetSeconds * 1000);
  try {
    const ok = await main();
    await cleanupOnce();
    clearTimeout(watchdog);
    if (ok === false) process.exit(1);
  } catch (error) {
    await fail(error);
  }
}
