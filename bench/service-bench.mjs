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
//   - one GET path of the service against the bare Fastify process serving the same bytes, with
//     autocannon as a third process at 50 connections, both warmed up, then both measured
//     (compareWithBare), and the JSON line that reports it (pathRow);
//   - cleanup however a run ends: success, failure, a signal or its watchdog (runBench).
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectLines, figures, freePort, loadGenerator, root, runCommand, spawnTracked, startBare, stopChild, waitForHttp } from './out-of-process.mjs';

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
export async function startService({ script, env, healthPath, cwd = root, onSpawn }) {
  const port = await freePort();
  // BENCH_CPU_PROF_DIR=<dir>: each service writes a V8 CPU profile there when it stops (what stands between it and the bare figure).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  const child = spawnTracked(process.execPath, [...profile, script], { cwd, env: { ...env, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  onSpawn?.(child);
  child.output = collectLines(child);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}${healthPath}`, { child, timeoutMs: 90_000, describe: () => `:\n${child.output.tail.join('\n')}` });
  return { child, origin };
}

// ---- one path against the bare reference ----

/**
 * GET `url` of the running service (`service`: its process) with `headers`, against
 * bench/bare-server.mjs serving the bytes and content type the service answered on `route` (a
 * Fastify pattern matching the URL's path). autocannon runs as its own process at CONNECTIONS
 * connections: `warmupSeconds` against the bare server, then against the service, then `seconds`
 * measured against each, bare first. `workDir` receives the body file; autocannon and Fastify
 * come from `packageDir` (the service's package). Returns {connections, seconds, warmupSeconds,
 * bodyBytes, service, bare (each `figures`), ratio (service/bare requests per second)}.
 */
export async function compareWithBare({ service, url, headers = {}, route, workDir, packageDir, seconds, warmupSeconds }) {
  const { pathname, search } = new URL(url);
  const answer = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  const body = Buffer.from(await answer.arrayBuffer());
  // A load test of 401s or 429s would measure nothing.
  if (answer.status !== 200) throw new Error(`GET ${pathname}: ${answer.status} (expected 200) ${body.toString('utf8', 0, 500)}`);
  const contentType = answer.headers.get('content-type') ?? 'application/json';
  const bodyFile = join(workDir, `bare-body-${Date.now()}`);
  writeFileSync(bodyFile, body);
  const bare = await startBare({ route, bodyFile, contentType, packageDir });
  try {
    const bareUrl = `${bare.origin}${pathname}${search}`;
    const check = await fetch(bareUrl, { signal: AbortSignal.timeout(5000) });
    const bareBody = Buffer.from(await check.arrayBuffer());
    if (check.status !== 200 || !bareBody.equals(body) || check.headers.get('content-type') !== contentType) {
      throw new Error(`the bare server does not serve the service's body (${check.status}, ${check.headers.get('content-type')})`);
    }
    const { autocannon, measured } = loadGenerator({ packageDir, connections: CONNECTIONS });
    log(`warm-up: bare and service GET ${pathname}, ${warmupSeconds} s each at ${CONNECTIONS} connections`);
    await autocannon(bareUrl, { duration: warmupSeconds });
    await autocannon(url, { headers, duration: warmupSeconds });
    log(`measuring: bare, then service, ${seconds} s each`);
    const bareRun = await measured(bare.child.pid, bareUrl, { duration: seconds });
    const serviceRun = await measured(service.pid, url, { headers, duration: seconds });
    return {
      connections: CONNECTIONS,
      seconds,
      warmupSeconds,
      bodyBytes: body.length,
      service: figures(serviceRun),
      bare: figures(bareRun),
      ratio: Number((serviceRun.requests.average / bareRun.requests.average).toFixed(3)),
    };
  } finally {
    bare.child.stdin.end();
    await stopChild(bare.child, 5000);
  }
}

/**
 * The JSON line of one path: `path` (service, method and path), the mode, the service's and the
 * bare server's requests per second, their ratio, the service's p99 (ms) and failed requests,
 * then `details`. `measurement` is compareWithBare's result, or `{service}` alone (no bare side).
 */
export function pathRow(path, measurement, details = {}) {
  const { service, bare, ratio } = measurement;
  return {
    path,
    mode: benchMode(),
    serviceRps: service.rps,
    bareRps: bare?.rps ?? null,
    ratio: ratio ?? null,
    p99Ms: service.p99,
    non2xx: service.non2xx,
    errors: service.errors,
    timeouts: service.timeouts,
    ...details,
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
