#!/usr/bin/env node
// What tracing costs: fx's GET /api/v1/rates/latest and its start-up with OpenTelemetry off (no
// OTEL_EXPORTER_OTLP_ENDPOINT: nothing of the SDK is loaded) and on (spans batched to an OTLP/HTTP
// receiver on loopback, run inside this process, that answers 200 and counts what it gets).
// Throughput: alternating rounds with wrk (bench/rounds.mjs), `on/off` the ratio of the medians of
// each round. Start-up: ms until the health route first answers, alternating off and on, medians.
// Usage: pnpm build && node bench/telemetry.mjs [seconds, default 10]
//        OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.1 node bench/telemetry.mjs   (tracing on, a tenth sampled)
// Prints one JSON line on stdout ({bench: 'telemetry', mode, throughput, startup, otlp}).
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureWrk } from './load-generator.mjs';
import { killTracked, root, stopChild } from './out-of-process.mjs';
import { alternatingRounds } from './rounds.mjs';
import { benchMode, benchSeconds, log, probe, runBench, startService } from './service-bench.mjs';

const PATH = '/api/v1/rates/latest';
const STARTS = 5;
const { seconds, warmupSeconds } = benchSeconds('node bench/telemetry.mjs');
const serviceDir = join(root, 'services', 'fx');
const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-telemetry-'));
const otlp = { requests: 0, bytes: 0 };
let receiver;

const env = (tracing, dataDir) => ({
  PATH: process.env.PATH,
  LOG_LEVEL: 'warn',
  DATA_DIR: dataDir,
  RATE_LIMIT_ANON_PER_MINUTE: '1000000000',
  RATE_LIMIT_ANON_PER_HOUR: '1000000000',
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  ...(tracing
    ? {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.address().port}`,
        ...(process.env.OTEL_TRACES_SAMPLER ? { OTEL_TRACES_SAMPLER: process.env.OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG: process.env.OTEL_TRACES_SAMPLER_ARG ?? '' } : {}),
      }
    : {}),
});

const startFx = (tracing, dataDir = join(workDir, 'data')) => startService({ script: join(serviceDir, 'dist', 'server.js'), env: env(tracing, dataDir), cwd: serviceDir, healthPath: '/api/v1/health' });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpuPerRequest = (runs) => Math.round(median(runs.map((run) => (run.serverCpuPercent * 10) / run.rps)) * 1000) / 1000;

async function main() {
  ensureWrk();
  receiver = createServer((request, response) => {
    otlp.requests += 1;
    request.on('data', (chunk) => (otlp.bytes += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  log(`fx ${benchMode()}: ${STARTS} starts each way, then 3 rounds of ${seconds} s (${warmupSeconds} s warm-up) each way`);

  // Start-up: the data directory exists (a warm start), so the figure is the process's own.
  const first = await startFx(false);
  await stopChild(first.child, 10_000);
  const startups = { off: [], on: [] };
  for (let start = 0; start < STARTS; start += 1) {
    for (const tracing of [false, true]) {
      const began = process.hrtime.bigint();
      const { child } = await startFx(tracing);
      startups[tracing ? 'on' : 'off'].push(Number(process.hrtime.bigint() - began) / 1e6);
      await stopChild(child, 10_000);
    }
  }

  const side = (name, tracing) => ({
    name,
    reference: !tracing,
    async start() {
      const { child, origin } = await startFx(tracing);
      return { pid: child.pid, origin, stop: () => stopChild(child, 10_000) };
    },
  });
  const rounds = await alternatingRounds({
    sides: [side('on', true), side('off', false)],
    request: (origin) => ({ url: `${origin}${PATH}` }),
    check: (origin) => probe(`${origin}${PATH}`),
    seconds,
    warmupSeconds,
    log,
  });
  const row = {
    bench: 'telemetry',
    mode: benchMode(),
    sampler: process.env.OTEL_TRACES_SAMPLER ? `${process.env.OTEL_TRACES_SAMPLER} ${process.env.OTEL_TRACES_SAMPLER_ARG ?? ''}`.trim() : 'parentbased_always_on',
    path: `GET ${PATH}`,
    throughput: { onRps: rounds.sides.on.rps, offRps: rounds.sides.off.rps, onP99: rounds.sides.on.p99, offP99: rounds.sides.off.p99, ratio: rounds.ratios['on/off'], invalid: rounds.invalid },
    // The service's CPU per request: on a machine busy with other work the server gets a share of a core, and
    // this figure, unlike requests per second, does not depend on how large that share was.
    cpuMsPerRequest: { on: cpuPerRequest(rounds.sides.on.runs), off: cpuPerRequest(rounds.sides.off.runs) },
    startup: { offMs: Math.round(median(startups.off)), onMs: Math.round(median(startups.on)), ratio: Math.round((median(startups.on) / median(startups.off)) * 100) / 100, starts: STARTS },
    otlp,
  };
  console.log(JSON.stringify(row));
  log(`throughput on/off ${JSON.stringify(row.throughput.ratio)}; CPU ms per request ${row.cpuMsPerRequest.off} off, ${row.cpuMsPerRequest.on} on; start-up ${row.startup.offMs} ms off, ${row.startup.onMs} ms on; OTLP received ${otlp.requests} requests, ${otlp.bytes} bytes`);
  return otlp.requests > 0;
}

await runBench(main, {
  budgetSeconds: 600 + 6 * (warmupSeconds + seconds + 60),
  async cleanup() {
    killTracked('SIGKILL');
    receiver?.close();
    rmSync(workDir, { recursive: true, force: true });
  },
});
