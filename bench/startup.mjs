#!/usr/bin/env node
// Start-up time and idle memory of the built services, as an operator starts them
// (`node dist/server.js` in the service's directory, configured through the environment). For each
// service: a first embedded start (empty DATA_DIR: PGlite initialises its cluster), then two warm
// embedded starts (the data directory exists); with DATABASE_URL, a first start against a fresh
// database on that server (migrations; psql on PATH, the database dropped at the end), then two
// warm starts against it, with REDIS_URL when given.
// Ready = first 200 from the health route (polled every 20 ms); RSS read from /proc after idling.
// Usage: pnpm build && node bench/startup.mjs [--idle-ms 5000]
//        DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 node bench/startup.mjs
// Prints one JSON line per start on stdout ({startup, mode, start, readyMs, rssMb, idleMs}), then a
// table on stderr. `pnpm bench` runs it and checks the goals.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, killTracked, root, sleep, spawnTracked, stopChild } from './out-of-process.mjs';
import { benchMode, freshDatabase, runBench } from './service-bench.mjs';

const idleFlag = process.argv.indexOf('--idle-ms');
const idleMs = idleFlag > 0 ? Number(process.argv[idleFlag + 1]) : 5000;
if (!Number.isInteger(idleMs) || idleMs < 0 || idleMs > 600_000) {
  console.error('usage: node bench/startup.mjs [--idle-ms 5000]');
  process.exit(2);
}
const services = [
  { name: 'identity', health: '/health' },
  { name: 'fx', health: '/api/v1/health' },
];
const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
const databases = [];

function rssMegabytes(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
}

/** One start of `service` with `env`: ms until its health route first answers 200, RSS after idling. */
async function measure(service, env) {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawnTracked(process.execPath, ['dist/server.js'], {
    cwd: join(root, 'services', service.name),
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const deadline = Date.now() + 60_000;
    let readyMs;
    while (readyMs === undefined && Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${service.name} exited (${child.exitCode}) before it was ready`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}${service.health}`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) readyMs = Number(process.hrtime.bigint() - started) / 1e6;
      } catch {
        // not listening yet
      }
      if (readyMs === undefined) await sleep(20);
    }
    if (readyMs === undefined) throw new Error(`${service.name} not ready within 60 s`);
    await sleep(idleMs);
    return { readyMs: Math.round(readyMs), rssMb: rssMegabytes(child.pid) };
  } finally {
    await stopChild(child, 10_000);
  }
}

/** A first start and two warm starts of `service` with `env`, each printed as it is measured. */
async function startThreeTimes(service, env, first, rows) {
  for (const start of [first, 'warm', 'warm']) {
    const row = { startup: service.name, mode: benchMode(env), start, ...(await measure(service, env)), idleMs };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
}

async function main() {
  const rows = [];
  for (const service of services) {
    await startThreeTimes(service, { DATA_DIR: join(workDir, `${service.name}-data`) }, 'first (cluster init)', rows);
    if (process.env.DATABASE_URL) {
      const database = freshDatabase(process.env.DATABASE_URL, `startup_bench_${service.name}_`);
      databases.push(database);
      await database.create();
      const env = {
        DATA_DIR: join(workDir, `${service.name}-unused`),
        DATABASE_URL: database.url,
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      };
      await startThreeTimes(service, env, 'first (migrations)', rows);
    }
  }
  console.error(`node ${process.version}, idle ${idleMs} ms before reading RSS`);
  console.error(rows.map(({ startup, mode, start, readyMs, rssMb }) => `  ${startup.padEnd(9)}${mode.padEnd(16)}${start.padEnd(22)}ready ${String(readyMs).padStart(6)} ms  RSS ${rssMb} MB`).join('\n'));
}

await runBench(main, {
  budgetSeconds: 600 + 12 * (idleMs / 1000),
  async cleanup() {
    killTracked('SIGTERM');
    await sleep(200);
    killTracked('SIGKILL');
    for (const database of databases) await database.drop();
    rmSync(workDir, { recursive: true, force: true });
  },
});
