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
// Shared pieces: identity-bench-setup.mjs (database, tenant, token, HTTP, cleanup) and
// bench/out-of-process.mjs (process management). identity-bench-setup.mjs cannot pass extra
// environment to the processes it starts (WEBHOOK_ALLOW_PRIVATE_TARGETS, WORKER_IN_PROCESS=true),
// so this file starts the API and the worker itself with the same environment plus those.
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
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import {
  collectLines,
  cpuSeconds,
  firstJsonLine,
  freePort,
  isWarning,
  load1m,
  machineBusySeconds,
  mapConcurrent,
  percentiles,
  root,
  sleep,
  spawnTracked,
  stopChild,
  waitForHttp,
} from '../../../bench/out-of-process.mjs';
import { benchDir, expectJson, expectResponse, identityBench, log, PARTNER, serviceDir } from './identity-bench-setup.mjs';

// ---- arguments ----

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const flags = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((arg) => arg.startsWith('--'))
    .map((arg) => {
      const [name, value = 'true'] = arg.slice(2).split('=');
      return [name, value];
    }),
);
const deliveries = Number(positional[0] ?? 10_000);
const changes = Number(positional[1] ?? 300);
const queueVia = flags.queue ?? 'sql';
const intervalMs = Number(flags.interval ?? 20);
const cpuProfDir = flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null;
const pgSample = flags['pg-sample'] === 'true';
/** WEBHOOK_CONCURRENCY of the phase-1 worker; unset: the service's default (200). */
const concurrency = flags.concurrency === undefined ? null : Number(flags.concurrency);
const unknownFlags = Object.keys(flags).filter((name) => !['queue', 'interval', 'cpu-prof', 'pg-sample', 'concurrency'].includes(name));
if (
  !Number.isInteger(deliveries) ||
  deliveries < 10 ||
  deliveries > 200_000 ||
  !Number.isInteger(changes) ||
  changes < 2 ||
  changes > 5000 ||
  !['sql', 'api'].includes(queueVia) ||
  !Number.isInteger(intervalMs) ||
  intervalMs < 0 ||
  intervalMs > 10_000 ||
  (concurrency !== null && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000)) ||
  unknownFlags.length > 0
) {
  console.error('usage: node services/identity/bench/webhooks.mjs [deliveries, 10-200000, default 10000] [changes, 2-5000, default 300] [--queue=sql|api] [--interval=ms, default 20] [--cpu-prof=dir] [--pg-sample] [--concurrency=n]');
  process.exit(2);
}
if (!process.env.DATABASE_URL) {
  console.error('webhooks.mjs needs DATABASE_URL (a PostgreSQL server): the API and the worker are separate processes sharing the queue, and embedded PGlite is one process.');
  process.exit(2);
}

/** Requests in flight while --queue=api creates the cases. */
const CREATE_CONCURRENCY = 8;
/** How often the drain looks at the receiver's count (cheap) and, once it has them all, at the table. */
const RECEIVER_POLL_MS = 50;
const TABLE_POLL_MS = 100;
/** A gap between two arrivals at the receiver at least this long counts as a stall of the pipeline. */
const STALL_MS = 3;
const CASE_BODY = { documentType: 'SyrianPassport' };

const bench = identityBench({ workDirPrefix: 'identity-bench-webhooks-', databasePrefix: 'bench_webhooks_' });
const { query } = bench;
let receiver;
let sampler;

// Setup, queueing (the API path is the slow one), the drain, two latency runs, cleanup.
const drainTimeoutMs = (60 + deliveries / 100) * 1000;
const budgetSeconds = Math.ceil(300 + (queueVia === 'api' ? deliveries / 50 : 30) + drainTimeoutMs / 1000 + 2 * (60 + (changes * Math.max(intervalMs, 20)) / 1000));

// ---- the identity processes, with the webhook settings ----

// identity-bench-setup.mjs keeps its environment to itself; the API and worker here get the same
// shape (temporary DATA_DIR, the run's database, a random SECRETS_KEY shared by both, REDIS_URL)
// plus the webhook variables. Only webhook signing secrets are sealed with SECRETS_KEY, and only
// these two processes seal or open them, so the CLI's own key does not matter.
const secretsKey = randomBytes(32).toString('hex');

function identityEnvironment(extra) {
  const url = new URL(bench.databaseUrl);
  url.pathname = `/${bench.databaseName}`;
  return {
    PATH: process.env.PATH,
    HOST: '127.0.0.1',
    DATA_DIR: join(bench.workDir, 'data'),
    SECRETS_KEY: secretsKey,
    LOG_LEVEL: 'warn',
    DATABASE_URL: url.toString(),
    ...(bench.redisUrl ? { REDIS_URL: bench.redisUrl } : {}),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...extra,
  };
}

/** The API (`dist/server.js`); resolves with its origin once /health answers. Replaces bench.service, so the cleanup stops it. */
async function startApi({ workerInProcess }) {
  const port = await freePort();
  const env = identityEnvironment({ PORT: String(port), RATE_LIMIT_PER_MINUTE: '100000000', WORKER_IN_PROCESS: String(workerInProcess) });
  const service = spawnTracked(process.execPath, [join(serviceDir, 'dist', 'server.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  bench.service = service;
  service.output = collectLines(service);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/health`, { child: service, timeoutMs: 90_000, describe: () => `:\n${service.output.tail.join('\n')}` });
  return origin;
}

/**
 * One standalone worker (`dist/worker.js`), tracked in bench.workers like identity-bench-setup's
 * (so assertWorkersAlive and the cleanup cover it); `ready` resolves when it logged "identity-worker started".
 */
function startWorker(index, { nodeOptions = [], extraEnv = {} } = {}) {
  // info, for the one "started" line; the delivery worker logs nothing else at info.
  const env = identityEnvironment({ LOG_LEVEL: 'info', ...extraEnv });
  const child = spawnTracked(process.execPath, [...nodeOptions, join(serviceDir, 'dist', 'worker.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const worker = { index, child, spawnedAt: Date.now(), readyAt: null, cpuAtReady: null, warnings: 0, warningTail: [], exited: null };
  let markReady;
  worker.ready = new Promise((resolveReady) => (markReady = resolveReady));
  worker.output = collectLines(child, {
    onLine(line) {
      if (worker.readyAt === null && line.includes('identity-worker started')) {
        worker.readyAt = Date.now();
        worker.cpuAtReady = cpuSeconds(child.pid);
        markReady(worker.readyAt);
      } else if (isWarning(line)) {
        worker.warnings += 1;
        worker.warningTail.push(line);
        if (worker.warningTail.length > 10) worker.warningTail.shift();
      }
    },
  });
  child.once('exit', (code, signal) => (worker.exited = code ?? signal));
  child.once('error', (error) => (worker.exited = error.message));
  bench.workers.push(worker);
  return worker;
}

async function stopWorker(worker) {
  await stopChild(worker.child, 15_000);
  bench.workers.splice(bench.workers.indexOf(worker), 1);
}

/**
 * Seconds a process (its main thread; with `threads`, all its threads) spent runnable but waiting
 * for a CPU so far: the second field of /proc/<pid>[/task/<tid>]/schedstat. Null where unreadable.
 */
function runQueueWaitSeconds(pid, { threads = false } = {}) {
  try {
    const ids = threads ? readdirSync(`/proc/${pid}/task`) : [null];
    let total = 0;
    for (const tid of ids) total += Number(readFileSync(tid === null ? `/proc/${pid}/schedstat` : `/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
    return total;
  } catch {
    return null;
  }
}

/**
 * CPU seconds (user + system) and run-queue wait of every PostgreSQL server process alive now, from
 * /proc (the server runs on this machine): the database's share when taken before and after a phase.
 * Backends that exit in between are not counted (the worker's connections live throughout). Nulls
 * when /proc cannot be read.
 */
function postgresUsage() {
  try {
    let cpu = 0;
    let wait = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu += (Number(fields[11]) + Number(fields[12])) / 100;
      wait += runQueueWaitSeconds(entry) ?? 0;
    }
    return { cpu, wait };
  } catch {
    return { cpu: null, wait: null };
  }
}

// ---- the optional PostgreSQL activity sampler (--pg-sample) ----

async function startSampler() {
  const url = new URL(bench.databaseUrl);
  url.pathname = `/${bench.databaseName}`;
  const child = spawnTracked(process.execPath, [join(benchDir, 'pg-activity-sampler.mjs'), url.toString(), '10'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  await firstJsonLine(child, 'the PostgreSQL activity sampler', 15_000);
  return child;
}

async function samplerReport() {
  const line = firstJsonLine(sampler, 'the PostgreSQL activity sampler', 15_000);
  sampler.stdin.write('stop\n');
  return line;
}

// ---- the receiver ----

async function startReceiver() {
  const child = spawnTracked(process.execPath, [join(benchDir, 'webhook-receiver.mjs')], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const { port } = await firstJsonLine(child, 'the webhook receiver', 15_000);
  child.output = collectLines(child);
  return { child, origin: `http://127.0.0.1:${port}` };
}

async function receiverStats() {
  const response = await fetch(`${receiver.origin}/stats`, { signal: AbortSignal.timeout(5000) });
  return response.json();
}

async function receiverReceipts() {
  const response = await fetch(`${receiver.origin}/receipts`, { signal: AbortSignal.timeout(15_000) });
  const text = await response.text();
  return text ? text.split('\n').map((line) => JSON.parse(line)) : [];
}

async function resetReceiver() {
  await fetch(`${receiver.origin}/reset`, { method: 'POST', signal: AbortSignal.timeout(5000) }).then((response) => response.arrayBuffer());
}

// ---- the queue ----

async function queueCounts() {
  const rows = await query('queue', 'select status, count(*) from identity.webhook_deliveries group by status');
  return Object.fromEntries(rows.map(([status, count]) => [status, Number(count)]));
}

const sqlText = (value) => `'${String(value).replaceAll("'", "''")}'`;

/** The key paths and value types of a JSON body, in order: two bodies of the same shape give the same list. */
function shapeOf(value, path = '') {
  if (value === null) return [`${path}:null`];
  if (Array.isArray(value)) return [`${path}:array`];
  if (typeof value !== 'object') return [`${path}:${typeof value}`];
  return Object.entries(value).flatMap(([key, inner]) => shapeOf(inner, `${path}.${key}`));
}

/**
 * N-2 deliveries by SQL (after the 2 the API made): the columns fan-out.ts writes, and bodies as
 * recordCaseEvent serialises them (JSON.stringify: no spaces, keys in its order). A third of each:
 * session_issued (just created), cancelled (completedAt set), approved (score, reason, completedAt).
 * created_at and next_attempt_at are the event's time (as fan-out.ts writes them): one a second,
 * the last one now, so every row is due when the worker starts.
 */
async function insertDeliveries({ endpointId, tenantId, sandbox, count }) {
  const iso = (expression) => `to_char((${expression}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  await query(
    'insert deliveries',
    `insert into identity.webhook_deliveries (topic, subscription_id, subject_id, payload, status, attempt_count, max_attempts, next_attempt_at, created_at)
     select e.event_type, ${sqlText(endpointId)}::uuid, e.case_id,
       format('{"eventType":"%s","eventId":"evt_%s","timestamp":"%s","apiVersion":"v1","tenantId":"%s","sandbox":%s,"data":{"caseId":"%s","externalReference":"%s","status":"%s","documentType":"SyrianPassport","compositeRiskScore":%s,"decisionReason":%s,"completedAt":%s}}',
         e.event_type, gen_random_uuid(), ${iso('e.at')}, ${sqlText(tenantId)}, ${sqlText(String(sandbox))}, e.case_id, e.reference, e.status,
         case when e.status = 'Approved' then '0.' || lpad((e.i % 97)::text, 2, '0') else 'null' end,
         case when e.status = 'Approved' then '"All automated checks passed: document authentic, face match 0.94, liveness 0.96"' else 'null' end,
         case when e.status = 'SessionIssued' then 'null' else '"' || ${iso('e.at')} || '"' end),
       'pending', 0, 5, e.at, e.at
     from (
       select i, gen_random_uuid() as case_id,
         (array['verification.session_issued', 'verification.cancelled', 'verification.approved'])[i % 3 + 1] as event_type,
         (array['SessionIssued', 'Cancelled', 'Approved'])[i % 3 + 1] as status,
         'crm-customer-' || lpad(i::text, 8, '0') || '/onboarding-' || to_char(now(), 'YYYYMMDD') as reference,
         now() - make_interval(secs => ${count} - i) as at
       from generate_series(1, ${count}) as i
     ) as e`,
  );
}

// ---- the run ----

const round = (value, digits = 1) => (value === null || value === undefined || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));
const perSecond = (count, ms) => (ms > 0 ? Math.round((count / (ms / 1000)) * 10) / 10 : null);
const cpuDelta = (before, after) => (before === null || before === undefined || after === null || after === undefined ? null : round(after - before, 2));

/** Phase 2: `changes` state changes on a fixed schedule, then the receiver's arrivals matched to them. */
async function latencyRun(label, origin, auth, mode) {
  await resetReceiver();
  const queued = await queueCounts();
  if ((queued.pending ?? 0) + (queued.in_flight ?? 0) > 0) throw new Error(`${label}: the queue is not empty before the run: ${JSON.stringify(queued)}`);
  const loadBefore = load1m();
  log(`${label}: ${changes} state changes, one every ${intervalMs} ms (create, cancel, create, …)`);
  const expected = [];
  const requestMs = [];
  const started = performance.now();
  let caseId = null;
  for (let index = 0; index < changes; index += 1) {
    const due = started + index * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sentAt = performance.timeOrigin + performance.now();
    if (index % 2 === 0) {
      const created = await expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { ...CASE_BODY, externalReference: `${label}-${index}` }, headers: auth });
      caseId = created.caseId;
      expected.push({ caseId, eventType: 'verification.session_issued', sentAt, answeredAt: performance.timeOrigin + performance.now() });
    } else {
      await expectResponse(origin, 'POST', `${PARTNER}/verifications/${caseId}/cancel`, 204, { json: { reason: 'bench: customer withdrew' }, headers: auth });
      expected.push({ caseId, eventType: 'verification.cancelled', sentAt, answeredAt: performance.timeOrigin + performance.now() });
    }
    requestMs.push(expected.at(-1).answeredAt - sentAt);
  }
  const changesSeconds = (performance.now() - started) / 1000;
  const deadline = Date.now() + 30_000;
  let stats = await receiverStats();
  while (stats.received < changes && Date.now() < deadline) {
    await sleep(50);
    stats = await receiverStats();
  }
  // A moment more, so a duplicate or a stray would be seen.
  await sleep(300);
  stats = await receiverStats();
  const receipts = await receiverReceipts();
  const byKey = new Map();
  for (const receipt of receipts) {
    const key = `${receipt.caseId} ${receipt.eventType}`;
    byKey.set(key, [...(byKey.get(key) ?? []), receipt]);
  }
  const latencies = [];
  const afterAnswer = [];
  const missing = [];
  for (const change of expected) {
    const [receipt] = byKey.get(`${change.caseId} ${change.eventType}`) ?? [];
    if (!receipt) {
      missing.push(change);
      continue;
    }
    latencies.push(receipt.receivedAt - Date.parse(receipt.timestamp));
    afterAnswer.push(receipt.receivedAt - change.answeredAt);
  }
  const problems = [];
  if (missing.length > 0) problems.push(`${missing.length} of ${changes} changes never reached the receiver within 30 s`);
  if (stats.failures > 0) problems.push(`${stats.failures} signature failures ${JSON.stringify(stats.failureReasons)}`);
  if (stats.duplicates > 0) problems.push(`${stats.duplicates} duplicate deliveries`);
  if (receipts.length !== changes) problems.push(`${receipts.length} receipts for ${changes} changes`);
  const latencyFigures = percentiles(latencies, 1);
  const p90 = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0 ? null : round(sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)]);
  };
  return {
    phase: `latency-${mode}`,
    mode: mode === 'standalone' ? 'API WORKER_IN_PROCESS=false + 1 standalone worker' : 'API WORKER_IN_PROCESS=true (worker in the API process)',
    changes,
    intervalMs,
    changesSeconds: round(changesSeconds, 2),
    // The headline: receiver arrival − the event's timestamp field.
    changeToDeliveryMs: { ...latencyFigures, p90: p90(latencies) },
    // The same arrival − the moment the API's answer reached the bench (negative: the webhook came first).
    answerToDeliveryMs: { ...percentiles(afterAnswer, 1), p90: p90(afterAnswer) },
    apiRequestMs: { ...percentiles(requestMs, 1), p90: p90(requestMs) },
    receiver: { received: stats.received, verified: stats.verified, failures: stats.failures, duplicates: stats.duplicates, attemptsAbove1: stats.attemptsAbove1 },
    queue: await queueCounts(),
    load1m: [loadBefore, load1m()],
    ok: problems.length === 0,
    problems,
  };
}

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
  receiver.child.stdin.write(`${JSON.stringify({ secret: signingSecret })}\n`);
  log(`endpoint ${endpoint.id} -> ${endpoint.url}`);

  // ---- phase 1: queue N deliveries, then one worker drains them ----

  const queueStarted = Date.now();
  if (queueVia === 'api') {
    log(`1: creating ${deliveries} cases through the API (${CREATE_CONCURRENCY} at a time), no worker running`);
    await mapConcurrent(
      Array.from({ length: deliveries }, (_, index) => index),
      CREATE_CONCURRENCY,
      (index) => expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { ...CASE_BODY, externalReference: `crm-customer-${String(index).padStart(8, '0')}/onboarding` }, headers: auth }),
    );
  } else {
    // Two real deliveries from the API: the template the SQL bodies are checked against.
    const created = await expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { ...CASE_BODY, externalReference: 'crm-customer-00000000/onboarding-real' }, headers: auth });
    await expectResponse(origin, 'POST', `${PARTNER}/verifications/${created.caseId}/cancel`, 204, { json: { reason: 'bench: customer withdrew' }, headers: auth });
    const [[sandbox]] = await query('tenant', `select sandbox from identity.tenants where id = ${sqlText(tenant.tenantId)}`);
    log(`1: inserting ${deliveries - 2} deliveries by SQL after the API's 2, no worker running`);
    await insertDeliveries({ endpointId: endpoint.id, tenantId: tenant.tenantId, sandbox: sandbox === 't', count: deliveries - 2 });
    const samples = await query(
      'shapes',
      `(select topic, payload from identity.webhook_deliveries where subject_id = ${sqlText(created.caseId)} order by created_at)
       union all (select topic, payload from identity.webhook_deliveries where subject_id <> ${sqlText(created.caseId)} limit 3)`,
    );
    const [realIssued, realCancelled, ...synthetic] = samples.map(([topic, payload]) => ({ topic, body: JSON.parse(payload) }));
    const realShape = shapeOf(realIssued.body).join(' ');
    for (const sample of synthetic) {
      const sampleShape = shapeOf(sample.body).join(' ');
      const realOfKind = sample.topic === 'verification.cancelled' ? realCancelled : realIssued;
      // Approved has a number and a reason where the others have null: compare keys alone for it.
      const keysOnly = (shape) => shape.replaceAll(/:[a-z]+/g, '');
      const same = sample.topic === 'verification.approved' ? keysOnly(sampleShape) === keysOnly(realShape) : sampleShape === shapeOf(realOfKind.body).join(' ');
      if (!same) throw new Error(`a SQL-made ${sample.topic} body does not have the API's shape:\n  sql ${sampleShape}\n  api ${shapeOf(realOfKind.body).join(' ')}`);
    }
  }
  const queueMs = Date.now() - queueStarted;
  const queued = await queueCounts();
  const [[avgBytes, minBytes, maxBytes]] = await query('payload sizes', 'select round(avg(octet_length(payload))), min(octet_length(payload)), max(octet_length(payload)) from identity.webhook_deliveries');
  const topics = Object.fromEntries((await query('topics', 'select topic, count(*) from identity.webhook_deliveries group by topic order by topic')).map(([topic, count]) => [topic, Number(count)]));
  if (queued.pending !== deliveries || Object.keys(queued).length !== 1) throw new Error(`before the worker starts: ${JSON.stringify(queued)} (expected ${deliveries} pending)`);
  const statsBefore = await receiverStats();
  if (statsBefore.received + statsBefore.beforeSecret !== 0) throw new Error(`the receiver got ${statsBefore.received + statsBefore.beforeSecret} requests before any worker ran`);
  log(`1: ${deliveries} deliveries pending (${avgBytes} bytes on average); starting one worker`);

  const [[commitsBefore, rollbacksBefore]] = await query('xacts', 'select xact_commit, xact_rollback from pg_stat_database where datname = current_database()');
  const nodeOptions = [];
  if (cpuProfDir) {
    mkdirSync(cpuProfDir, { recursive: true });
    nodeOptions.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`);
  }
  if (pgSample) sampler = await startSampler();
  const drainLoad = [load1m()];
  const worker = startWorker(0, { nodeOptions, extraEnv: concurrency === null ? {} : { WEBHOOK_CONCURRENCY: String(concurrency) } });
  let drainStart = null;
  void worker.ready.then(() => {
    sampler?.stdin.write('start\n');
    const pg = postgresUsage();
    drainStart = {
      machine: machineBusySeconds(),
      api: cpuSeconds(bench.service.pid),
      receiver: cpuSeconds(receiver.child.pid),
      postgres: pg.cpu,
      waits: { workerMain: runQueueWaitSeconds(worker.child.pid), worker: runQueueWaitSeconds(worker.child.pid, { threads: true }), receiver: runQueueWaitSeconds(receiver.child.pid), postgres: pg.wait },
    };
  });
  const deadline = Date.now() + drainTimeoutMs;
  /** psql runs of the bench itself during the drain: each is a PostgreSQL transaction, not the worker's. */
  let benchQueries = 0;
  let stats = statsBefore;
  while (stats.received < deliveries) {
    bench.assertWorkersAlive();
    if (Date.now() > deadline) throw new Error(`the receiver got ${stats.received} of ${deliveries} deliveries within ${drainTimeoutMs / 1000} s: ${JSON.stringify(await queueCounts())}`);
    await sleep(RECEIVER_POLL_MS);
    stats = await receiverStats();
  }
  let counts = await queueCounts();
  benchQueries += 1;
  while ((counts.succeeded ?? 0) + (counts.failed ?? 0) < deliveries) {
    bench.assertWorkersAlive();
    if (Date.now() > deadline) throw new Error(`not every delivery settled within ${drainTimeoutMs / 1000} s: ${JSON.stringify(counts)}`);
    await sleep(TABLE_POLL_MS);
    counts = await queueCounts();
    benchQueries += 1;
  }
  const pgEnd = postgresUsage();
  const drainEnd = {
    at: Date.now(),
    machine: machineBusySeconds(),
    api: cpuSeconds(bench.service.pid),
    receiver: cpuSeconds(receiver.child.pid),
    worker: cpuSeconds(worker.child.pid),
    postgres: pgEnd.cpu,
    waits: { workerMain: runQueueWaitSeconds(worker.child.pid), worker: runQueueWaitSeconds(worker.child.pid, { threads: true }), receiver: runQueueWaitSeconds(receiver.child.pid), postgres: pgEnd.wait },
  };
  drainLoad.push(load1m());
  const pgActivity = sampler ? await samplerReport() : null;
  // PostgreSQL's backends publish their counters at most once a second: wait for the worker's.
  await sleep(1500);
  const [[commitsAfter, rollbacksAfter]] = await query('xacts', 'select xact_commit, xact_rollback from pg_stat_database where datname = current_database()');
  const [[firstCompleted, lastCompleted, maxAttempts, nonNullStatus, settleGroups]] = await query(
    'completion times',
    `select (extract(epoch from min(completed_at)) * 1000)::bigint, (extract(epoch from max(completed_at)) * 1000)::bigint, max(attempt_count),
            count(*) filter (where last_status_code <> 204), count(distinct completed_at)
       from identity.webhook_deliveries`,
  );
  stats = await receiverStats();
  // Stalls: stretches with no arrival at the receiver, i.e. no POST completing (the worker was
  // claiming, reading endpoints or settling with nothing in flight, or waiting for a CPU).
  const arrivals = (await receiverReceipts()).map((receipt) => receipt.receivedAt).sort((a, b) => a - b);
  const gaps = arrivals.slice(1).map((at, index) => at - arrivals[index]).filter((gap) => gap >= STALL_MS);
  const stalls = { thresholdMs: STALL_MS, count: gaps.length, totalMs: round(gaps.reduce((sum, gap) => sum + gap, 0)), ...percentiles(gaps, 1) };
  const readyAt = worker.readyAt ?? worker.spawnedAt;
  const drainMs = Number(lastCompleted) - readyAt;
  const windowSeconds = drainMs / 1000;
  const cpu = drainStart
    ? (() => {
        const machine = cpuDelta(drainStart.machine, drainEnd.machine);
        const workerSeconds = cpuDelta(worker.cpuAtReady, drainEnd.worker);
        const api = cpuDelta(drainStart.api, drainEnd.api);
        const receiverSeconds = cpuDelta(drainStart.receiver, drainEnd.receiver);
        const postgresSeconds = cpuDelta(drainStart.postgres, drainEnd.postgres);
        const known = [workerSeconds, api, receiverSeconds, postgresSeconds];
        // The window here runs to when the bench saw the last row settled, a little past lastCompleted.
        const observedSeconds = (drainEnd.at - readyAt) / 1000;
        return {
          observedSeconds: round(observedSeconds, 2),
          machineSeconds: machine,
          machinePercent: machine === null ? null : Math.round((machine / observedSeconds) * 100),
          workerSeconds,
          workerPercent: workerSeconds === null ? null : Math.round((workerSeconds / observedSeconds) * 100),
          receiverSeconds,
          postgresSeconds,
          postgresPercent: postgresSeconds === null ? null : Math.round((postgresSeconds / observedSeconds) * 100),
          apiSeconds: api,
          // Runnable but waiting for a CPU (the machine was busy): the worker's main thread, all its threads, the receiver, PostgreSQL.
          runQueueWaitSeconds: Object.fromEntries(Object.keys(drainStart.waits).map((name) => [name, cpuDelta(drainStart.waits[name], drainEnd.waits[name])])),
          restSeconds: machine === null || known.includes(null) ? null : round(machine - known.reduce((sum, value) => sum + value, 0), 2),
        };
      })()
    : null;
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
    drainSeconds: round(windowSeconds, 3),
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
    cpu,
    ...(pgActivity ? { pgActivity } : {}),
    load1m: drainLoad,
    ok: problems.length === 0,
    problems,
  };
  console.log(JSON.stringify(throughput));

  // ---- phase 2a: API without worker + the standalone worker, queue empty ----

  await sleep(1000);
  const standalone = await latencyRun('latency-standalone', origin, auth, 'standalone');
  console.log(JSON.stringify(standalone));

  // The worker's profile is written when it exits: stop it before the next run.
  const workerWarnings = { count: worker.warnings, tail: worker.warningTail.slice(-3) };
  await stopWorker(worker);
  const apiWarnings = [{ mode: 'standalone', count: bench.service.output.lines, tail: bench.service.output.tail.slice(-3) }];
  await stopChild(bench.service, 10_000);

  // ---- phase 2b: the worker inside the API process ----

  const inProcessOrigin = await startApi({ workerInProcess: true });
  log(`API with the worker in process at ${inProcessOrigin} (pid ${bench.service.pid})`);
  await sleep(1000);
  const inProcess = await latencyRun('latency-in-process', inProcessOrigin, auth, 'in-process');
  console.log(JSON.stringify(inProcess));
  apiWarnings.push({ mode: 'in-process', count: bench.service.output.lines, tail: bench.service.output.tail.slice(-3) });

  // ---- the summary ----

  const ok = throughput.ok && standalone.ok && inProcess.ok;
  const lat = (run) => `${run.changeToDeliveryMs.p50} / ${run.changeToDeliveryMs.p90} / ${run.changeToDeliveryMs.p99} ms (max ${run.changeToDeliveryMs.max})`;
  const summary = [
    `## identity webhooks (${environment.cpus} CPUs${environment.cpuModel ? `, ${environment.cpuModel.trim()}` : ''}, node ${process.version}, PostgreSQL, ${environment.store})`,
    '',
    `| figure | value | target |`,
    `|---|---|---|`,
    `| throughput, 1 standalone worker (WEBHOOK_CONCURRENCY ${throughput.webhookConcurrency}), ${deliveries} queued (${queueVia}), ready → last succeeded | **${throughput.deliveriesPerSecond} deliveries/s** (${throughput.drainSeconds} s) | ≥ 2000/s ${throughput.deliveriesPerSecond >= 2000 ? '✓' : '✗'} |`,
    `| same, counting the worker's start-up (${throughput.workerReadyAfterMs} ms) | ${throughput.deliveriesPerSecondFromSpawn} deliveries/s | |`,
    `| receiver first → last arrival | ${throughput.receiverPerSecond} deliveries/s | |`,
    `| change → delivery, API + standalone worker, p50 / p90 / p99 | ${lat(standalone)} | p50 < 100 ms ${standalone.changeToDeliveryMs.p50 < 100 ? '✓' : '✗'} |`,
    `| change → delivery, worker in the API process, p50 / p90 / p99 | ${lat(inProcess)} | p50 < 100 ms ${inProcess.changeToDeliveryMs.p50 < 100 ? '✓' : '✗'} |`,
    '',
    `- stalls (≥ ${STALL_MS} ms with no arrival at the receiver): ${throughput.receiverStalls.count}, ${throughput.receiverStalls.totalMs} ms in all = ${Math.round(throughput.receiverStalls.shareOfFirstToLast * 100)}% of first → last arrival (median ${throughput.receiverStalls.p50} ms, max ${throughput.receiverStalls.max} ms)`,
    `- throughput check: ${throughput.receiver.verified} of ${deliveries} signatures verified, ${throughput.receiver.failures} failures, ${throughput.receiver.duplicates} duplicates; queue ${JSON.stringify(throughput.queue)}; bodies ${throughput.payloadBytes.avg} bytes on average (${throughput.payloadBytes.min}–${throughput.payloadBytes.max})`,
    throughput.cpu
      ? `- CPU over the drain (${throughput.cpu.observedSeconds} s): machine ${throughput.cpu.machinePercent}% of ${environment.cpus * 100}%; worker ${throughput.cpu.workerSeconds} s (${throughput.cpu.workerPercent}% of a core), receiver ${throughput.cpu.receiverSeconds} s, PostgreSQL ${throughput.cpu.postgresSeconds} s (${throughput.cpu.postgresPercent}% of a core), API ${throughput.cpu.apiSeconds} s, the rest (the bench's polling, anything else on the machine) ${throughput.cpu.restSeconds} s; waited for a CPU (runnable, not running): worker main thread ${throughput.cpu.runQueueWaitSeconds.workerMain} s, PostgreSQL ${throughput.cpu.runQueueWaitSeconds.postgres} s, receiver ${throughput.cpu.runQueueWaitSeconds.receiver} s; ~${throughput.postgres.transactions} PostgreSQL transactions by the worker (${throughput.postgres.transactionsPerDelivery} per delivery), ${throughput.postgres.settles} settle statements (${throughput.postgres.rowsPerSettle} rows each on average)`
      : '- CPU over the drain: not available',
    `- latency runs: ${changes} changes one every ${intervalMs} ms (${standalone.changesSeconds} s and ${inProcess.changesSeconds} s); API answer → arrival p50 ${standalone.answerToDeliveryMs.p50} ms standalone, ${inProcess.answerToDeliveryMs.p50} ms in process (negative: the webhook arrived before the API's answer); API request p50 ${standalone.apiRequestMs.p50} / ${inProcess.apiRequestMs.p50} ms`,
    `- checks: ${ok ? 'ok' : 'FAILED'}${[...throughput.problems, ...standalone.problems, ...inProcess.problems].map((problem) => `; ${problem}`).join('')}`,
    `- 1-minute load average ${throughput.load1m.join(' -> ')} over the drain (${environment.cpus} CPUs; the bench's own processes count in it)`,
  ];
  if (workerWarnings.count > 0) summary.push(`- the worker logged ${workerWarnings.count} line(s) at warn or above; the last: ${workerWarnings.tail.map((line) => line.slice(0, 300)).join(' | ')}`);
  for (const api of apiWarnings) if (api.count > 0) summary.push(`- the API (${api.mode}) logged ${api.count} line(s) at warn or above; the last: ${api.tail.map((line) => line.slice(0, 300)).join(' | ')}`);
  if (pgActivity) {
    summary.push(`- PostgreSQL activity over the drain (${pgActivity.samples} samples every ${pgActivity.intervalMs} ms; busy backends ${pgActivity.busyBackendsMean} on average; share = fraction of samples):`);
    for (const entry of pgActivity.byActivity.slice(0, 8)) summary.push(`  - ${entry.share} ${entry.key}`);
    for (const entry of pgActivity.background.slice(0, 4)) summary.push(`  - background ${entry.share} ${entry.key}`);
  }
  if (cpuProfDir) summary.push(`- the worker's CPU profile is in ${cpuProfDir}`);
  console.log(summary.join('\n'));
  return ok;
}

await bench.run(main, {
  budgetSeconds,
  async beforeStop() {
    if (sampler) {
      sampler.stdin.end();
      await stopChild(sampler, 5000);
    }
    if (receiver) {
      receiver.child.stdin.end();
      await stopChild(receiver.child, 5000);
    }
  },
});
