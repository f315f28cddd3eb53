// The load generator of every path bench: wrk (C, epoll), one thread, in a process of its own.
// A Node load generator (autocannon) costs about as much CPU per request as the bare Fastify
// server it drives, so on this 2-core machine it saturated first and left the bare reference
// at 63-70% of a core: every ratio against it came out too high. wrk spends a fraction of that,
// so the server under test is the one that runs out of CPU, which the rounds check
// (bench/rounds.mjs) instead of assuming.
// wrk reports through a Lua script written per run: `done()` prints one JSON line with the
// request count, duration, error counts (status >= 400 counted as `status`) and latency
// percentiles; `request()` sets a fresh value of `uniqueHeader` per request (an Idempotency-Key)
// and cycles `rotateHeader.name` through `rotateHeader.values` (one credential per case).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, runCommand } from './out-of-process.mjs';

/** wrk on PATH, installed with apt-get when this is root on Debian; otherwise exits naming the command. */
export function ensureWrk() {
  const present = () => spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  if (present()) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0) {
    console.error("[bench] wrk not found: installing Debian's wrk with apt-get (the load generator of every path bench)");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'wrk'], { stdio: 'inherit', env });
    if (present()) return;
  }
  console.error('[bench] wrk is missing: the benches drive every server with it. Install it as root with: apt-get install -y wrk');
  process.exit(1);
}

const luaString = (text) => `"${String(text).replace(/[\\"]/g, (c) => `\\${c}`).replace(/\r/g, '\\r').replace(/\n/g, '\\n')}"`;

/** The Lua script of one run: method, headers, body (inline or from `bodyFile`), unique header, JSON report. */
function script({ method, headers, body, bodyFile, uniqueHeader, rotateHeader }) {
  const lines = [`wrk.method = ${luaString(method)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  if (bodyFile) lines.push(`local f = assert(io.open(${luaString(bodyFile)}, "rb"))`, 'wrk.body = f:read("*all")', 'f:close()');
  else if (body !== undefined) lines.push(`wrk.body = ${luaString(body)}`);
  if (uniqueHeader || rotateHeader) {
    // What changes per request: a unique value (a random prefix per run from Node's CSPRNG, not Lua's
    // time-seeded one, and a counter) and/or the next value of a list.
    lines.push('local counter = 0');
    if (rotateHeader) lines.push(`local rotating = { ${rotateHeader.values.map(luaString).join(', ')} }`);
    if (uniqueHeader) lines.push(`local prefix = ${luaString(`${randomBytes(8).toString('hex')}-`)}`);
    lines.push('request = function()', '  counter = counter + 1');
    if (uniqueHeader) lines.push(`  wrk.headers[${luaString(uniqueHeader)}] = prefix .. counter`);
    if (rotateHeader) lines.push(`  wrk.headers[${luaString(rotateHeader.name)}] = rotating[(counter % #rotating) + 1]`);
    lines.push('  return wrk.format()', 'end');
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'{"requests":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * One wrk run against `url` for `seconds` at `connections` connections on one thread. Resolves with
 * {rps, p50, p90, p99 (ms), requests, non2xx (status >= 400), errors (socket errors), timeouts,
 * loadCpuPercent (wrk's own CPU: 100 = one core busy throughout)}.
 */
export async function runWrk({ url, method = 'GET', headers = {}, body, bodyFile, uniqueHeader, rotateHeader, seconds, connections, timeoutSeconds = 10 }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const scriptFile = join(dir, 'run.lua');
  writeFileSync(scriptFile, script({ method, headers, body, bodyFile, uniqueHeader, rotateHeader }));
  const args = ['-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--timeout', `${timeoutSeconds}s`, '-s', scriptFile, url];
  // wrk's CPU is read from /proc while it runs (its last reading before it exits): a child is reaped
  // as soon as it ends, and with it its /proc entry.
  let child;
  let lastCpu = null;
  const started = Date.now();
  const sampler = setInterval(() => {
    const cpu = child ? cpuSeconds(child.pid) : null;
    if (cpu !== null) lastCpu = { cpu, at: Date.now() };
  }, 100);
  try {
    const run = runCommand(`wrk ${method} ${url}`, 'wrk', args, { timeoutMs: (seconds + timeoutSeconds + 30) * 1000, onSpawn: (spawned) => (child = spawned) });
    const { stdout } = await run;
    const line = stdout.trim().split('\n').reverse().find((candidate) => candidate.startsWith('{'));
    if (!line) throw new Error(`wrk printed no JSON: ${stdout.slice(0, 500)}`);
    const report = JSON.parse(line);
    const ms = (us) => Math.round(us / 10) / 100;
    const durationSeconds = report.durationUs / 1e6;
    return {
      rps: Math.round((report.requests / durationSeconds) * 10) / 10,
      p50: ms(report.latencyUs.p50),
      p90: ms(report.latencyUs.p90),
      p99: ms(report.latencyUs.p99),
      max: ms(report.latencyUs.max),
      requests: report.requests,
      non2xx: report.errors.status,
      errors: report.errors.connect + report.errors.read + report.errors.write,
      timeouts: report.errors.timeout,
      loadCpuPercent: lastCpu === null ? null : Math.round((lastCpu.cpu / ((lastCpu.at - started) / 1000)) * 100),
    };
  } finally {
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true });
  }
}
