#!/usr/bin/env node
// Start-up time and idle memory of the built services, as an operator starts them
// (`node dist/server.js`). For each service: a cold embedded start (empty DATA_DIR: PGlite
// initialises its cluster), a warm embedded start (data directory exists), and, when
// DATABASE_URL is given, a start against PostgreSQL (+ REDIS_URL if given).
// Ready = first 200 from the health route; RSS read from /proc after idling.
// Usage: pnpm build && node bench/startup.mjs [--idle-ms 5000]
//        DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 node bench/startup.mjs
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const idleMs = Number(process.argv[process.argv.indexOf('--idle-ms') + 1] || 5000) || 5000;
const services = [
  { name: 'identity', port: 43101, health: '/health' },
  { name: 'fx', port: 43102, health: '/api/v1/health' },
];

function rssMegabytes(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
}

async function measure(service, env) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: join(root, 'services', service.name),
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(service.port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  let readyMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${service.port}${service.health}`);
      if (response.status === 200) {
        readyMs = Number(process.hrtime.bigint() - started) / 1e6;
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (readyMs === undefined) throw new Error(`${service.name} not ready within 60 s`);
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const rss = rssMegabytes(child.pid);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return { readyMs: Math.round(readyMs), rssMb: rss };
}

const rows = [];
for (const service of services) {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-bench-${service.name}-`));
  try {
    rows.push({ service: service.name, mode: 'pglite, first start (cluster init)', ...(await measure(service, { DATA_DIR: dataDir })) });
    rows.push({ service: service.name, mode: 'pglite, existing data directory', ...(await measure(service, { DATA_DIR: dataDir })) });
    rows.push({ service: service.name, mode: 'pglite, existing data directory', ...(await measure(service, { DATA_DIR: dataDir })) });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (process.env.DATABASE_URL) {
    const env = { DATABASE_URL: process.env.DATABASE_URL, SECRETS_KEY: randomBytes(32).toString('hex'), ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) };
    rows.push({ service: service.name, mode: `postgres${process.env.REDIS_URL ? ' + redis' : ''}`, ...(await measure(service, env)) });
  }
}
console.log(`node ${process.version}, idle ${idleMs} ms before reading RSS`);
console.table(rows);
