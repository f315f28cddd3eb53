// Outbound webhook delivery on PostgreSQL, with the API, the delivery worker and a webhook receiver
// each in a process of its own:
//   1. throughput: one endpoint is registered (POST /webhooks; verification.session_issued,
//      .cancelled, .approved) pointing at services/identity/bench/webhook-receiver.mjs; with no worker running, N deliveries are
//      queued for it in identity.webhook_deliveries; then ONE standalone worker starts and the
//      bench times until all N are `succeeded`: deliveries/s from the worker's "started" line to
//      the last completed_at. The receiver verifies every signature with @svc/webhook-signing's
//      verifyIdentityWebhook (failures must be 0) and counts receipts and duplicates.
//      How the queue is filled (--queue):
//        sql (default): 2 deliveries come from the API itself (a case created and cancelled:
//          verification.session_issued and verification.cancelled), the other N-2 are inserted
//          with one INSERT … SELECT generate_series: the same columns fan-out.ts writes, bodies
//          in the exact shape of recordCaseEvent (checked against the two real ones: same keys,
//          same order, same types), a mix of session_issued / cancelled / approved, ~500 bytes,
//          created_at = next_attempt_at = the event's time, one a second up to now (all due).
//        api: N cases are created through POST /verifications (8 at a time): each case's
//          verification.session_issued is one delivery; slower to prepare, the bodies are real.
//   2. change→delivery latency: the queue empty, M state changes through the API one after the
//      other on a fixed schedule (one every --interval ms; alternately a case created, which fires
//      verification.session_issued, and that case cancelled, verification.cancelled); latency =
//      the receiver's arrival time (last byte of the body) − the event's `timestamp` field (the
//      API's clock at the change; both on this machine's clock): median, p90, p99. Run twice:
//        a. API with WORKER_IN_PROCESS=false + the standalone worker of phase 1 (woken by the
//           NOTIFY identity_webhook_deliveries committed with each change);
//        b. API alone with WORKER_IN_PROCESS=true (the worker inside the API process).
// The processes, as an operator runs them: `node services/identity/dist/server.js` and
// `node services/identity/dist/worker.js` with the same DATABASE_URL and SECRETS_KEY,
// WEBHOOK_ALLOW_PRIVATE_TARGETS=true (so an http://127.0.0.1 receiver can be registered and
// reached), the default WEBHOOK_CONCURRENCY (200) and DELIVERY_LEASE_MS; the API's per-IP limit
// raised so nothing is refused. The tenant comes from the CLI (`cli tenant:create`), the token from
// a portal login and an openssl-made client certificate, as in the other identity benches.
// Shared pieces: identity-bench-setup.mjs (arguments, database, tenant, token, HTTP, the API and
// the worker with the run's environment plus WEBHOOK_ALLOW_PRIVATE_TARGETS, WORKER_IN_PROCESS and
// WEBHOOK_CONCURRENCY as above, cleanup) and
// bench/out-of-process.mjs (process management). This file holds the drain (phase 1) and the run;
// webhook-bench-phases.mjs the receiver, the sampler, the queue and phase 2; webhook-bench-report.mjs
// the /proc counters, the CPU figures and the markdown summary.
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
//     node services/identity/bench/webhooks.mjs [deliveries] [changes] [--queue=sql|api] [--interval=ms]
//       [--cpu-prof=dir] [--pg-sample] [--concurrency=n]
//   defaults: 10000 deliveries, 300 changes, --queue=sql, --interval=20. --cpu-prof=dir runs the
//   phase-1 worker with node --cpu-prof and leaves its .cpuprofile in dir (open it in Chrome DevTools).
//   Diagnostics (they change what is measured a little; not for the headline figures):
//   --pg-sample samples pg_stat_activity every 10 ms during the drain (pg-activity-sampler.mjs, its
//   own process) and prints where the database's time went; --concurrency=n sets the phase-1
//   worker's WEBHOOK_CONCURRENCY (default: unset, the service's 200).
// A fresh database bench_webhooks_<timestamp> is created on that server (psql on PATH, connected to
// its `postgres` database) and dropped at the end; the database named in the URL is not touched.
// REDIS_URL is optional (the API's rate-limit counters). Prints one JSON line per phase, then a
// markdown summary, on stdout (progress on stderr). Exit code 1 when setup fails or a check fails
// (a signature failure, a delivery missing, duplicated or not succeeded); every child process is
// ended on any exit, and the whole run is bounded.
import { mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { load1m, sleep, stopChild } from '../../../bench/out-of-process.mjs';
import { benchArguments, expectJson, identityBench, log, PARTNER } from './identity-bench-setup.mjs';
import { fillQueue, latencyRun, queueCounts, startReceiver, startSampler } from './webhook-bench-phases.mjs';
import { drainCounters, drainCpu, perSecond, printSummary, round, stallsOf } from './webhook-bench-report.mjs';

// ---- arguments ----

const { numbers, flags } = benchArguments('webhooks.mjs', {
  numbers: [['deliveries', 10, 200_000, 10_000], ['changes', 2, 5000, 300]],
  flags: {
    queue: { usage: '--queue=sql|api', values: ['sql', 'api'], fallback: 'sql' },
    interval: { usage: '--interval=ms, default 20', range: [0, 10_000], fallback: 20 },
    'cpu-prof': { usage: '--cpu-prof=dir' },
    'pg-sample': { usage: '--pg-sample' },
    concurrency: { usage: '--concurrency=n', range: [1, 10_000] },
  },
  needsDatabase: 'the API and the worker are separate processes sharing the queue, and embedded PGlite is one process.',
});
const [deliveries, changes] = numbers;
const queueVia = flags.queue;
const intervalMs = flags.interval;
const cpuProfDir = flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null;
const pgSample = flags['pg-sample'] === 'true';
/** WEBHOOK_CONCURRENCY of the phase-1 worker; unset (null): the service's default (200). */
const concurrency = flags.concurrency;

/** How often the drain looks at the receiver's count (cheap) and, once it has them all, at the table. */
const RECEIVER_POLL_MS = 50;
const TABLE_POLL_MS = 100;
/** A gap between two arrivals at the receiver at least this long counts as a stall of the pipeline. */
const STALL_MS = 3;
/** Added to the API's and the worker's environment: the receiver is an http://127.0.0.1 URL. */
const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };

const bench = identityBench({ workDirPrefix: 'identity-bench-webhooks-', databasePrefix: 'bench_webhooks_' });
const { query } = bench;
let receiver;
let sampler;

// Setup, queueing (the API path is the slow one), the drain, two latency runs, cleanup.
const drainTimeoutMs = (60 + deliveries / 100) * 1000;
const budgetSeconds = Math.ceil(300 + (queueVia === 'api' ? deliveries / 50 : 30) + drainTimeoutMs / 1000 + 2 * (60 + (changes * Math.max(intervalMs, 20)) / 1000));

/** The API (`dist/server.js`) with the webhook settings; resolves with its origin once /health answers. */
const startApi = ({ workerInProcess }) => bench.startService({ env: { ...WEBHOOK_ENV, WORKER_IN_PROCESS: String(workerInProcess) } });

async function main() {
  const environment = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, database: 'postgres', store: bench.redisUrl ? 'redis' : 'memory' };
  log(`${deliveries} deliveries queued via ${queueVia}, ${changes} latency changes every ${intervalMs} ms, ${environment.cpus} CPUs, node ${process.version}, load ${load1m()}`);

  await bench.createDatabase();
  const tenant = await bench.createTenant();
  receiver = await startReceiver();
  log(`receiver at ${receiver.origin} (pid ${receiver.child.pid})`);

  const origin = await startApi({ workerInProcess: false });
  log(`API at ${origin} (pid ${bench.service.pid}), no worker in process, no worker running`);
  const auth = await bench.authenticate(origin);

  const { endpoint, signingSecret } = await expectJson(origin, 'POST', `${PARTNER}/webhooks`, 201, {
    json: { url: `${receiver.origin}/hooks/identity`, eventTypes: ['verification.session_issued', 'verification.cancelled', 'verification.approved'] },
    headers: auth,
  });
  receiver.setSecret(signingSecret);
  log(`endpoint ${endpoint.id} -> ${endpoint.url}`);

  // ---- phase 1: queue N deliveries, then one worker drains them ----

  const queueStarted = Date.now();
  await fillQueue({ via: queueVia, deliveries, origin, auth, query, tenantId: tenant.tenantId, endpointId: endpoint.id });
  const queueMs = Date.now() - queueStarted;
  const queued = await queueCounts(query);
  const [[avgBytes, minBytes, maxBytes]] = await query('payload sizes', 'select round(avg(octet_length(payload))), min(octet_length(payload)), max(octet_length(payload)) from identity.webhook_deliveries');
  const topics = Object.fromEntries((await query('topics', 'select topic, count(*) from identity.webhook_deliveries group by topic order by topic')).map(([topic, count]) => [topic, Number(count)]));
  if (queued.pending !== deliveries || Object.keys(queued).length !== 1) throw new Error(`before the worker starts: ${JSON.stringify(queued)} (expected ${deliveries} pending)`);
  const statsBefore = await receiver.stats();
  if (statsBefore.received + statsBefore.beforeSecret !== 0) throw new Error(`the receiver got ${statsBefore.received + statsBefore.beforeSecret} requests before any worker ran`);
  log(`1: ${deliveries} deliveries pending (${avgBytes} bytes on average); starting one worker`);

  const [[commitsBefore, rollbacksBefore]] = await query('xacts', 'select xact_commit, xact_rollback from pg_stat_database where datname = current_database()');
  const nodeOptions = [];
  if (cpuProfDir) {
    mkdirSync(cpuProfDir, { recursive: true });
    nodeOptions.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`);
  }
  if (pgSample) sampler = await startSampler(bench.runDatabaseUrl);
  const drainLoad = [load1m()];
  const worker = bench.startWorker(0, { nodeOptions, env: { ...WEBHOOK_ENV, ...(concurrency === null ? {} : { WEBHOOK_CONCURRENCY: String(concurrency) }) } });
  const processes = { api: bench.service, receiver: receiver.child, worker: worker.child };
  let drainStart = null;
  void worker.ready.then(() => {
    sampler?.start();
    drainStart = drainCounters(processes);
  });
  const deadline = Date.now() + drainTimeoutMs;
  /** psql runs of the bench itself during the drain: each is a PostgreSQL transaction, not the worker's. */
  let benchQueries = 0;
  let stats = statsBefore;
  while (stats.received < deliveries) {
    bench.assertWorkersAlive();
    if (Date.now() > deadline) throw new Error(`the receiver got ${stats.received} of ${deliveries} deliveries within ${drainTimeoutMs / 1000} s: ${JSON.stringify(await queueCounts(query))}`);
    await sleep(RECEIVER_POLL_MS);
    stats = await receiver.stats();
  }
  let counts = await queueCounts(query);
  benchQueries += 1;
  while ((counts.succeeded ?? 0) + (counts.failed ?? 0) < deliveries) {
    bench.assertWorkersAlive();
    if (Date.now() > deadline) throw new Error(`not every delivery settled within ${drainTimeoutMs / 1000} s: ${JSON.stringify(counts)}`);
    await sleep(TABLE_POLL_MS);
    counts = await queueCounts(query);
    benchQueries += 1;
  }
  const drainEnd = drainCounters(processes);
  drainLoad.push(load1m());
  const pgActivity = sampler ? await sampler.report() : null;
  // PostgreSQL's backends publish their counters at most once a second: wait for the worker's.
  await sleep(1500);
  const [[commitsAfter, rollbacksAfter]] = await query('xacts', 'select xact_commit, xact_rollback from pg_stat_database where datname = current_database()');
  const [[firstCompleted, lastCompleted, maxAttempts, nonNullStatus, settleGroups]] = await query(
    'completion times',
    `select (extract(epoch from min(completed_at)) * 1000)::bigint, (extract(epoch from max(completed_at)) * 1000)::bigint, max(attempt_count),
            count(*) filter (where last_status_code <> 204), count(distinct completed_at)
       from identity.webhook_deliveries`,
  );
  stats = await receiver.stats();
  const stalls = stallsOf((await receiver.receipts()).map((receipt) => receipt.receivedAt), STALL_MS);
  const readyAt = worker.readyAt ?? worker.spawnedAt;
  const drainMs = Number(lastCompleted) - readyAt;
  const problems = [];
  if (counts.succeeded !== deliveries) problems.push(`${counts.succeeded ?? 0} of ${deliveries} succeeded: ${JSON.stringify(counts)}`);
  if (stats.failures > 0) problems.push(`${stats.failures} signature failures ${JSON.stringify(stats.failureReasons)}`);
  if (stats.distinctDeliveries !== deliveries) problems.push(`the receiver saw ${stats.distinctDeliveries} distinct deliveries (expected ${deliveries})`);
  if (stats.duplicates > 0) problems.push(`${stats.duplicates} duplicate receipts`);
  if (Number(maxAttempts) !== 1) problems.push(`some delivery took ${maxAttempts} attempts`);
  if (Number(nonNullStatus) > 0) problems.push(`${nonNullStatus} deliveries recorded a status other than 204`);
  // Less the bench's own: its polls, the query that read the counter, and the sampler's reads.
  const transactions = Number(commitsAfter) - Number(commitsBefore) - benchQueries - 1 - (pgActivity?.samples ?? 0);
  const throughput = {
    phase: 'throughput',
    deliveries,
    queuedVia: queueVia === 'sql' ? 'sql (2 from the API, the rest INSERT … SELECT)' : 'api (one POST /verifications per delivery)',
    ...environment,
    webhookConcurrency: concurrency ?? 200,
    payloadBytes: { avg: Number(avgBytes), min: Number(minBytes), max: Number(maxBytes) },
    topics,
    queueSeconds: round(queueMs / 1000, 2),
    workerReadyAfterMs: worker.readyAt === null ? null : worker.readyAt - worker.spawnedAt,
    // The headline: every delivery succeeded, from the worker's "started" line to the last completed_at.
    drainSeconds: round(drainMs / 1000, 3),
    deliveriesPerSecond: perSecond(deliveries, drainMs),
    // Including the worker's start-up (node, the database connection, the migrations check).
    deliveriesPerSecondFromSpawn: perSecond(deliveries, Number(lastCompleted) - worker.spawnedAt),
    // The receiver's first to last arrival: the steady rate, start-up and the last settle left out.
    receiverFirstToLastSeconds: round((stats.lastAt - stats.firstAt) / 1000, 3),
    receiverPerSecond: perSecond(deliveries - 1, stats.lastAt - stats.firstAt),
    firstToLastCompletedSeconds: round((Number(lastCompleted) - Number(firstCompleted)) / 1000, 3),
    receiverStalls: { ...stalls, shareOfFirstToLast: round(stalls.totalMs / (stats.lastAt - stats.firstAt), 3) },
    receiver: { received: stats.received, verified: stats.verified, failures: stats.failures, distinctDeliveries: stats.distinctDeliveries, duplicates: stats.duplicates },
    queue: counts,
    // Approximate (PostgreSQL publishes backend counters about once a second); settles: one completed_at per settle statement.
    postgres: { transactions, rollbacks: Number(rollbacksAfter) - Number(rollbacksBefore), transactionsPerDelivery: round(transactions / deliveries, 3), settles: Number(settleGroups), rowsPerSettle: round(deliveries / Number(settleGroups)) },
    cpu: drainCpu(drainStart, drainEnd, { readyAt, cpuAtReady: worker.cpuAtReady }),
    ...(pgActivity ? { pgActivity } : {}),
    load1m: drainLoad,
    ok: problems.length === 0,
    problems,
  };
  console.log(JSON.stringify(throughput));

  // ---- phase 2a: API without worker + the standalone worker, queue empty ----

  const latency = { auth, receiver, query, changes, intervalMs };
  await sleep(1000);
  const standalone = await latencyRun({ ...latency, label: 'latency-standalone', mode: 'standalone', origin });
  console.log(JSON.stringify(standalone));

  // The worker's profile is written when it exits: stop it before the next run.
  const workerWarnings = { count: worker.warnings, tail: worker.warningTail.slice(-3) };
  await bench.stopWorker(worker);
  const apiWarnings = [{ mode: 'standalone', count: bench.service.output.lines, tail: bench.service.output.tail.slice(-3) }];
  await stopChild(bench.service, 10_000);

  // ---- phase 2b: the worker inside the API process ----

  const inProcessOrigin = await startApi({ workerInProcess: true });
  log(`API with the worker in process at ${inProcessOrigin} (pid ${bench.service.pid})`);
  await sleep(1000);
  const inProcess = await latencyRun({ ...latency, label: 'latency-in-process', mode: 'in-process', origin: inProcessOrigin });
  console.log(JSON.stringify(inProcess));
  apiWarnings.push({ mode: 'in-process', count: bench.service.output.lines, tail: bench.service.output.tail.slice(-3) });

  const ok = throughput.ok && standalone.ok && inProcess.ok;
  printSummary({ environment, queueVia, throughput, standalone, inProcess, ok, workerWarnings, apiWarnings, pgActivity, cpuProfDir });
  return ok;
}

await bench.run(main, {
  budgetSeconds,
  async beforeStop() {
    await sampler?.stop();
    await receiver?.stop();
  },
});
