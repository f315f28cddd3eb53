// Shared by benches that measure a service out of process: the service, a bare reference server
// and the load generator (autocannon) each run as their own process, so none of them shares an
// event loop with autocannon and the figures are the server's, not the client's. This module holds
// the service-independent parts:
//   - child processes, each in its own process group, so a timeout, an interrupt or the bench's own
//     exit ends a child with everything it started (spawnTracked, killGroup, killTracked,
//     stopChild, runCommand), plus freePort and sleep;
//   - autocannon as its own process with JSON output (loadGenerator: a warm-up is a plain
//     `autocannon` run, `measured` adds the server process's CPU use), and `figures` to report it;
//   - the bare comparison server (startBare, running bench/bare-server.mjs);
//   - small generic pieces for benches that drive several processes: reading a child's output by
//     lines (collectLines, firstJsonLine; isWarning picks pino lines at warn or above), waiting for
//     an HTTP server (waitForHttp), bounded concurrency (mapConcurrent), latency percentiles
//     (percentiles), the machine's CPU use (machineBusySeconds) and its 1-minute load average
//     (load1m).
// autocannon and Fastify are resolved from the calling service's package (`packageDir`): they are
// its devDependencies and dependencies, not the repository root's.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sharedDir = dirname(fileURLToPath(import.meta.url));
/** The repository root: the default working directory of commands. */
export const root = join(sharedDir, '..');

// ---- child processes: each in its own process group, so a timeout or an exit ends it whole ----

const children = new Set();
let exitHookInstalled = false;

/** spawn(), detached into its own process group and tracked until it exits. */
export function spawnTracked(command, args, options) {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Whatever way the bench ends, no child outlives it.
    process.on('exit', () => killTracked('SIGKILL'));
  }
  const child = spawn(command, args, { ...options, detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  // 'error' (e.g. ENOENT) is reported by the callers that wait on the child.
  child.on('error', () => children.delete(child));
  return child;
}

/** Sends `signal` to the child's whole process group (to the child alone if that fails). */
export function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Sends `signal` to every tracked child still running, except those in `keep`. */
export function killTracked(signal, keep = []) {
  for (const child of children) if (!keep.includes(child)) killGroup(child, signal);
}

/** SIGTERM; resolves when the child has exited; after `graceMs`, SIGKILL. */
export function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null || !children.has(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      resolve();
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    killGroup(child, 'SIGTERM');
  });
}

/** Runs a command to completion within `timeoutMs`; rejects on a non-zero exit with its stderr. `onSpawn(child)` sees the process at once. */
export function runCommand(label, command, args, { env = process.env, cwd = root, timeoutMs, onSpawn }) {
  return new Promise((resolve, reject) => {
    const child = spawnTracked(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${label}: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) reject(new Error(`${label}: no result within ${timeoutMs / 1000} s`));
      else if (code !== 0) reject(new Error(`${label}: exit ${code ?? signal}${stderr.trim() ? `: ${stderr.trim().slice(-2000)}` : ''}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** A loopback port free at the time of asking. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- autocannon in its own process ----

/**
 * autocannon as a child process at `connections` connections, resolved from `packageDir` (a
 * package that has it as a dependency). `autocannon(url, {method, headers, body, duration})`
 * returns its JSON result; use one such run as the warm-up. `measured(serverPid, url, options)`
 * is the same run with the server process's CPU use over it (`serverCpuPercent`).
 */
export function loadGenerator({ packageDir, connections }) {
  const cli = createRequire(join(packageDir, 'package.json')).resolve('autocannon');

  async function autocannon(url, { method = 'GET', headers = {}, body, duration }) {
    const args = [cli, '-j', '-n', '-c', String(connections), '-d', String(duration), '-m', method];
    for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
    if (body !== undefined) args.push('-b', body);
    args.push(url);
    const { stdout } = await runCommand(`autocannon ${method} ${url}`, process.execPath, args, { cwd: packageDir, timeoutMs: (duration + 30) * 1000 });
    const line = stdout.trim().split('\n').reverse().find((candidate) => candidate.startsWith('{'));
    if (!line) throw new Error(`autocannon printed no JSON: ${stdout.slice(0, 500)}`);
    return JSON.parse(line);
  }

  /** A measured run, with the server process's CPU use over it (100 = one core busy throughout). */
  async function measured(serverPid, url, options) {
    const cpuBefore = cpuSeconds(serverPid);
    const started = Date.now();
    const result = await autocannon(url, options);
    const cpuAfter = cpuSeconds(serverPid);
    result.serverCpuPercent = cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) / ((Date.now() - started) / 1000)) * 100);
    return result;
  }

  return { autocannon, measured };
}

/** CPU time (user + system, seconds) of one process so far, from /proc on Linux; null elsewhere. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/**
 * Busy CPU time of the whole machine so far (seconds summed over all CPUs: 2 is two cores busy
 * for one second), from /proc/stat on Linux; null elsewhere. Idle and iowait are not busy.
 */
export function machineBusySeconds() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const [user, nice, system, , , irq, softirq, steal = 0] = fields; // idle and iowait skipped
    return (user + nice + system + irq + softirq + steal) / 100; // USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/** The machine's 1-minute load average, to two decimals. */
export const load1m = () => Math.round(loadavg()[0] * 100) / 100;

/** The figures a bench reports from one autocannon result. */
export function figures(result) {
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
  return {
    rps: Math.round(result.requests.average * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    requests: result.requests.total,
    statusCodes: statusCounts,
    serverCpuPercent: result.serverCpuPercent,
  };
}

// ---- the bare comparison server ----

/**
 * Starts bench/bare-server.mjs in its own process, answering `method` `route` (a Fastify path
 * pattern such as `/verifications/:id`) with the bytes of `bodyFile` as `contentType`, after the
 * round trip its `options` name (`redis`, `pg` + `pg-query`: see bare-server.mjs); Fastify is
 * resolved from `packageDir`, its working directory. Returns `{child, origin}`. Stop it with
 * `child.stdin.end()` and `stopChild(child)`.
 */
export async function startBare({ method = 'GET', route, bodyFile, contentType, packageDir, options = {} }) {
  const flags = Object.entries(options).map(([name, value]) => `--${name}=${value}`);
  const child = spawnTracked(process.execPath, [join(sharedDir, 'bare-server.mjs'), method, route, bodyFile, contentType, ...flags], {
    cwd: packageDir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error('the bare server did not report its port within 15 s')), 15_000);
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        output += chunk;
        const newline = output.indexOf('\n');
        if (newline < 0) return;
        clearTimeout(timer);
        try {
          resolve(JSON.parse(output.slice(0, newline)).port);
        } catch (error) {
          reject(error);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the bare server exited (${code})`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    return { child, origin: `http://127.0.0.1:${port}` };
  } catch (error) {
    killGroup(child, 'SIGKILL');
    throw error;
  }
}

// ---- reading children's output, waiting for servers ----

/**
 * Splits a child's stdout and stderr (both piped) into lines as they come: counts them, keeps the
 * last `keep` in `tail`, and calls `onLine(line, streamName)` for each. Returns `{lines, tail}`
 * (live: read it whenever needed).
 */
export function collectLines(child, { keep = 30, onLine } = {}) {
  const collected = { lines: 0, tail: [] };
  for (const name of ['stdout', 'stderr']) {
    const stream = child[name];
    if (!stream) continue;
    let pending = '';
    stream.setEncoding('utf8').on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) {
        if (!line) continue;
        collected.lines += 1;
        collected.tail.push(line);
        if (collected.tail.length > keep) collected.tail.shift();
        onLine?.(line, name);
      }
    });
  }
  return collected;
}

/** Log lines at warn or above (pino level ≥ 40), or lines that are not pino JSON at all. */
export function isWarning(line) {
  try {
    return JSON.parse(line).level >= 40;
  } catch {
    return true;
  }
}

/**
 * The first line of the child's stdout that parses as JSON (a helper server's `{"port":…}`),
 * within `timeoutMs`; rejects if the child exits or fails first. Other listeners on stdout
 * (collectLines) still see every line.
 */
export function firstJsonLine(child, label, timeoutMs = 15_000) {
  return new Promise((resolve, reject) => {
    let output = '';
    const finish = (settle, value) => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      settle(value);
    };
    const onData = (chunk) => {
      output += chunk;
      const lines = output.split('\n');
      output = lines.pop();
      for (const line of lines) {
        try {
          finish(resolve, JSON.parse(line));
          return;
        } catch {
          // not the JSON line
        }
      }
    };
    const onExit = (code, signal) => finish(reject, new Error(`${label} exited (${code ?? signal}) before printing its JSON line`));
    const onError = (error) => finish(reject, new Error(`${label}: ${error.message}`));
    const timer = setTimeout(() => finish(reject, new Error(`${label} printed no JSON line within ${timeoutMs / 1000} s`)), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/**
 * Polls GET `url` until it answers 200, within `timeoutMs`. With `child`, gives up as soon as that
 * child exits; `describe()` adds context (e.g. the child's last log lines) to the error.
 */
export async function waitForHttp(url, { child, timeoutMs = 90_000, describe = () => '' } = {}) {
  let exited = null;
  const onExit = (code, signal) => (exited = code ?? signal);
  child?.once('exit', onExit);
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (exited !== null) throw new Error(`the process exited (${exited}) before ${url} answered${describe()}`);
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s${describe()}`);
  } finally {
    child?.off('exit', onExit);
  }
}

// ---- bounded concurrency and percentiles ----

/** fn(item, index) over `items`, at most `limit` at a time; resolves with the results in order, rejects on the first failure. */
export async function mapConcurrent(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  let failed = false;
  async function lane() {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** count, min, p50, p95, p99, max and mean of `values` (nearest rank), rounded to `digits` decimals; nulls when empty. */
export function percentiles(values, digits = 1) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const round = (value) => (value === null ? null : Number(value.toFixed(digits)));
  const rank = (p) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
  const mean = sorted.length === 0 ? null : sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { count: sorted.length, min: round(sorted[0] ?? null), p50: round(rank(50)), p95: round(rank(95)), p99: round(rank(99)), max: round(sorted.at(-1) ?? null), mean: round(mean) };
}
