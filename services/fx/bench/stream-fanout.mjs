// One fx instance holding N idle live streams (GET /api/v1/rates/stream, the page's URL), then
// fanning one change out to all of them: memory per stream (the server's RSS growth over the
// open streams, divided by N) and the time from sending POST /admin/rates to each client's
// `rates` event (p50/p99/max over every client of every round; the goal is p99 < 500 ms at
// 10,000 streams). Loopback only. The service runs as an operator runs it (`node dist/server.js`,
// embedded default or DATABASE_URL/REDIS_URL from the environment), the clients are raw sockets
// in this process, so each side holds N descriptors: the script re-runs itself under a raised
// `ulimit -n` when the soft limit is too low.
//
// Usage, after `pnpm build`, from the repository root:
//   node services/fx/bench/stream-fanout.mjs [streams=10000] [rounds=5]
// Prints one JSON line: {streams, rounds, connectSeconds, rssBeforeMb, rssAfterMb, bytesPerStream,
// latencyMs: {p50, p99, max, …}, firstClientMs and firstToLastMs per round, load1m}.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killTracked, load1m, percentiles, sleep, stopChild } from '../../../bench/out-of-process.mjs';
import { log, startService } from '../../../bench/service-bench.mjs';

const STREAMS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const serviceDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const needed = STREAMS + 512;

// Each side needs a descriptor per stream: re-run under a raised soft limit (up to the hard one) when short.
const softLimit = Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim());
if (softLimit < needed && !process.env.FX_BENCH_RAISED) {
  const hard = execFileSync('sh', ['-c', 'ulimit -Hn']).toString().trim();
  const target = hard === 'unlimited' ? needed : Math.min(needed, Number(hard));
  if (target < needed) log(`ulimit -n hard limit ${hard} is below ${needed}: expect refused connections`);
  const rerun = spawnSync('sh', ['-c', `ulimit -n ${target} && exec "$0" "$@"`, process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, FX_BENCH_RAISED: '1' } });
  process.exit(rerun.status ?? 1);
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const dataDir = mkdtempSync(join(tmpdir(), 'fx-bench-stream-'));
const sockets = [];
let service;

async function main() {
  service = await startService({
    script: join(serviceDir, 'dist', 'server.js'),
    cwd: serviceDir,
    healthPath: '/api/v1/health',
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      // On PostgreSQL the service refuses to start without a shared SECRETS_KEY; one instance needs any.
      SECRETS_KEY: process.env.SECRETS_KEY ?? randomBytes(32).toString('hex'),
      FX_ADMIN_TOKEN: ADMIN_TOKEN,
      // BENCH_LOG_LEVEL=debug: the service logs how long each fan-out loop took ('change fanned out', printed
      // below), but also every request, which disturbs the memory figure.
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      // Every bench client is 127.0.0.1: lift the per-IP stream count and request limits.
      FX_STREAM_MAX_PER_IP: String(STREAMS * 2),
      RATE_LIMIT_ANON_PER_MINUTE: String(STREAMS * 10),
      RATE_LIMIT_ANON_PER_HOUR: String(STREAMS * 10),
    },
  });
  const { port } = new URL(service.origin);
  const post = async (mid) => {
    const response = await fetch(`${service.origin}/api/v1/admin/rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': ADMIN_TOKEN },
      body: JSON.stringify({ source: 'MARKET', force: true, rates: [{ currency: 'USD', buy: mid - 1, sell: mid + 1 }] }),
    });
    if (response.status !== 201) throw new Error(`POST /admin/rates answered ${response.status}: ${await response.text()}`);
  };
  await post(13_000);
  await sleep(500);
  const rssBefore = rssMb(service.child.pid);

  // A client: sends the request, then only looks for the next `event: rates` after the round's marker.
  const latencies = [];
  // Per round: POST to the first client's event (write path), and first to last (fan-out and this process reading 10,000 sockets).
  const firstMs = [];
  const spreadMs = [];
  let round = { startedAt: 0, waiting: 0, done: () => undefined };
  const openOne = () =>
    new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      const client = { socket, opened: false, seenRound: -1 };
      socket.setNoDelay(true);
      socket.on('error', reject);
      // A frame arrives in one chunk on loopback (about 1 kB, written at once); Buffer.includes avoids decoding it.
      socket.on('data', (chunk) => {
        const text = chunk;
        if (!client.opened && text.includes('event: snapshot')) {
          client.opened = true;
          resolve(client);
        }
        if (round.id !== undefined && client.seenRound !== round.id && text.includes('event: rates')) {
          client.seenRound = round.id;
          latencies.push(performance.now() - round.startedAt);
          round.waiting -= 1;
          if (round.waiting === 0) round.done();
        }
      });
      socket.write(`GET /api/v1/rates/stream?lang=ar HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
    });

  const connectStarted = performance.now();
  const clients = [];
  // Batches keep the listen backlog from overflowing (a dropped SYN costs a 1 s retransmit).
  for (let index = 0; index < STREAMS; index += 250) {
    const batch = await Promise.all(Array.from({ length: Math.min(250, STREAMS - index) }, openOne));
    clients.push(...batch);
    sockets.push(...batch.map((client) => client.socket));
  }
  const connectSeconds = (performance.now() - connectStarted) / 1000;
  log(`${clients.length} streams open in ${connectSeconds.toFixed(1)} s`);
  await sleep(2000);
  const rssAfter = rssMb(service.child.pid);

  for (let index = 0; index < ROUNDS; index += 1) {
    const finished = new Promise((resolve) => {
      round = { id: index, startedAt: performance.now(), waiting: clients.length, done: resolve };
    });
    await post(13_000 + (index + 1) * 10);
    const timeout = sleep(30_000).then(() => 'timeout');
    const before = latencies.length;
    if ((await Promise.race([finished, timeout])) === 'timeout') throw new Error(`round ${index}: ${round.waiting} clients got no event in 30 s`);
    const roundLatencies = latencies.slice(before);
    firstMs.push(Math.round(Math.min(...roundLatencies)));
    spreadMs.push(Math.round(Math.max(...roundLatencies) - Math.min(...roundLatencies)));
    log(`round ${index + 1}: all ${clients.length} clients got the change`);
    await sleep(500);
  }
  const fanOutMs = service.child.output.tail
    .filter((line) => line.includes('change fanned out'))
    .map((line) => JSON.parse(line).ms);
  console.log(
    JSON.stringify({
      streams: clients.length,
      rounds: ROUNDS,
      mode: process.env.DATABASE_URL ? 'postgres' : 'embedded',
      connectSeconds: Number(connectSeconds.toFixed(1)),
      rssBeforeMb: Number(rssBefore.toFixed(1)),
      rssAfterMb: Number(rssAfter.toFixed(1)),
      bytesPerStream: Math.round(((rssAfter - rssBefore) * 1024 * 1024) / clients.length),
      latencyMs: percentiles(latencies),
      firstClientMs: firstMs,
      firstToLastMs: spreadMs,
      ...(fanOutMs.length > 0 ? { serverFanOutLoopMs: fanOutMs } : {}),
      load1m: load1m(),
    }),
  );
}

try {
  await main();
} catch (error) {
  log(`failed: ${error.message}`);
  if (service) log(service.child.output.tail.join('\n'));
  process.exitCode = 1;
} finally {
  for (const socket of sockets) socket.destroy();
  if (service) await stopChild(service.child);
  killTracked('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
}
