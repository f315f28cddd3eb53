// Automated checks end to end, on PostgreSQL, with the API, two standalone workers and an instant
// inference server each in a process of its own:
//   1. drain: N live-tenant cases are created, their sessions exchanged, their evidence
//      (DocumentFront, Selfie, LivenessVideo from services/identity/samples/) uploaded and all N
//      submitted while no worker runs; then both workers start and the bench times until every
//      case is decided: jobs decided per second, from the first worker ready to the last decision.
//   2. latency: with both workers running and idle, M more cases are submitted one at a time
//      (after a random pause of 0–1 s each, so submits do not lock onto the workers' poll phase)
//      and each is followed at 10 ms until decided: submit→decision as completedAt (set at the
//      decision, by the worker) minus the moment the submit answered; median and p95.
//   Then a check: every case Approved, one verification.approved event per case, one job attempt
//   and one call of each inference endpoint per case.
// The processes, as an operator runs them: `node services/identity/dist/server.js` (the API,
// WORKER_IN_PROCESS=false, per-IP limit raised so nothing is refused), twice
// `node services/identity/dist/worker.js` (CHECKS_PROVIDER=http, the three URLs, the default
// JOB_LEASE_MS; the same DATABASE_URL, SECRETS_KEY, DATA_DIR and EVIDENCE_DIR as the API, so they
// read the evidence it stored), and services/identity/bench/instant-inference-server.mjs, which
// drains each upload and answers a passing score at once: the figures are the service's own cost
// (API, queue, database, evidence storage), not a model's. The tenant is live (`cli tenant:create`
// without --sandbox), so cases go to the HTTP provider, not the sandbox simulator.
// The identity setup (arguments, database, tenant, processes, HTTP, cleanup) is shared with the other
// identity benches: identity-bench-setup.mjs (the workers get the CHECKS_* variables through its
// startWorker's `env`); the process management with every out-of-process bench: bench/out-of-process.mjs.
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 \
//     node services/identity/bench/checks.mjs [cases] [latency cases]     (default 400 and 50)
// DATABASE_URL is required (two workers share the queue; embedded PGlite is one process). A fresh
// database bench_checks_<timestamp> is created on that server (psql on PATH, connected to its
// `postgres` database) and dropped at the end; the database named in the URL is not touched.
// REDIS_URL is optional (the API's rate-limit counters). Prints one JSON line per phase and one
// for the check, then a short summary. Exit code 1 when setup fails or the check finds a case not
// Approved exactly once; every child process is ended on any exit, and the whole run is bounded.
import { randomInt } from 'node:crypto';
import { cpus } from 'node:os';
import { cpuSeconds, load1m, machineBusySeconds, mapConcurrent, percentiles, sleep } from '../../../bench/out-of-process.mjs';
import { benchArguments, expectJson, identityBench, log, PARTNER } from './identity-bench-setup.mjs';

const { numbers: [cases, latencyCases] } = benchArguments('checks.mjs', {
  numbers: [['cases', 1, 5000, 400], ['latency cases', 1, 500, 50]],
  needsDatabase: 'two worker processes share the job queue, and embedded PGlite is one process.',
});

const WORKERS = 2;
/** Requests in flight while cases are prepared and the drain phase's cases submitted. */
const CONCURRENCY = 8;
/** How often phase 2 reads a case while waiting for its decision. */
const LATENCY_POLL_MS = 10;
/** The job queue's poll interval (@svc/outbox's default; the worker does not change it): phase 2's random pause spans it. */
const QUEUE_POLL_MS = 1000;
/** Statuses of a case whose checks have not decided it yet. */
const UNDECIDED = ['EvidenceUploaded', 'AutomatedChecksRunning'];

const bench = identityBench({ workDirPrefix: 'identity-bench-checks-', databasePrefix: 'bench_checks_', evidence: true });
const { query, workers } = bench;
/** CPU counters when the first worker became ready: the start of the drain window. */
let drainStart = null;

// Setup, preparing and draining the cases, the latency cases one by one, cleanup: nothing may hang past this.
const drainTimeoutMs = (60 + cases * 0.25) * 1000;
const budgetSeconds = Math.ceil(300 + cases * 0.5 + drainTimeoutMs / 1000 + latencyCases * 5);

// ---- the run ----

const seconds = (ms) => Math.round(ms) / 1000;
const perSecond = (count, ms) => (ms > 0 ? Math.round((count / (ms / 1000)) * 10) / 10 : null);

/** Status counts of the cases whose externalReference starts with `prefix`. */
async function statusCounts(prefix) {
  const rows = await query('statuses', `select status, count(*) from identity.verification_cases where external_reference like '${prefix}-%' group by status order by status`);
  return Object.fromEntries(rows.map(([status, count]) => [status, Number(count)]));
}

async function inferenceStats(origin) {
  const response = await fetch(`${origin}/stats`, { signal: AbortSignal.timeout(5000) });
  return response.json();
}

const cpuDelta = (before, after) => (before === null || before === undefined || after === null ? null : Math.round((after - before) * 100) / 100);

/**
 * CPU seconds spent over the drain (first worker ready until the bench saw every case decided): the
 * whole machine (machinePercent: 100 per core busy throughout), each worker, the API, the inference
 * server, and the rest (PostgreSQL, the bench and its psql polls, anything else on the machine).
 */
function drainCpu(start, end) {
  if (!start) return null;
  const workerSeconds = workers.map((worker, index) => cpuDelta(worker.cpuAtReady, end.workers[index]));
  const machine = cpuDelta(start.machine, end.machine);
  const api = cpuDelta(start.api, end.api);
  const inferenceSeconds = cpuDelta(start.inference, end.inference);
  const known = [...workerSeconds, api, inferenceSeconds];
  const windowSeconds = (end.at - start.at) / 1000;
  return {
    windowSeconds,
    machineSeconds: machine,
    machinePercent: machine === null ? null : Math.round((machine / windowSeconds) * 100),
    workerSeconds,
    apiSeconds: api,
    inferenceSeconds,
    restSeconds: machine === null || known.includes(null) ? null : cpuDelta(known.reduce((sum, value) => sum + value, 0), machine),
  };
}

/** One call of each endpoint by hand, checked, before any worker depends on it. */
async function probeInference(origin) {
  const expected = { ocr: 'confidenceScore', 'face-match': 'similarityScore', liveness: 'livenessScore' };
  for (const [path, field] of Object.entries(expected)) {
    const response = await fetch(`${origin}/${path}`, { method: 'POST', body: 'probe', signal: AbortSignal.timeout(5000) });
    const answer = await response.json();
    if (response.status !== 200 || typeof answer[field] !== 'number') throw new Error(`the inference server answered /${path} with ${response.status} ${JSON.stringify(answer)}`);
  }
}

async function main() {
  const environment = { database: 'postgres', store: bench.redisUrl ? 'redis' : 'memory', workers: WORKERS, cpus: cpus().length, node: process.version };
  log(`postgres + ${environment.store}, ${cases} drain cases + ${latencyCases} latency cases, ${WORKERS} workers, ${environment.cpus} CPUs, node ${process.version}, load ${load1m()}`);

  await bench.createDatabase();
  // A live tenant (no --sandbox): its cases go to the HTTP checks provider.
  await bench.createTenant({ live: true });

  const inferenceOrigin = await bench.startInference();
  await probeInference(inferenceOrigin);
  const inferenceBaseline = await inferenceStats(inferenceOrigin);
  log(`instant inference server at ${inferenceOrigin} (pid ${bench.inference.pid})`);

  const origin = await bench.startService();
  log(`API at ${origin} (pid ${bench.service.pid}), no worker in process`);
  const auth = await bench.authenticate(origin);

  // ---- phase 1: drain a queue of N submitted cases with two workers ----

  const drainLoad = [load1m()];
  log(`1: preparing ${cases} cases (create, session, 3 uploads; ${CONCURRENCY} at a time), no worker running`);
  const prepareStarted = Date.now();
  const drainCases = await mapConcurrent(
    Array.from({ length: cases }, (_, index) => index),
    CONCURRENCY,
    (index) => bench.preparedCase(origin, auth, `drain-${index}`),
  );
  const prepareMs = Date.now() - prepareStarted;
  log(`1: submitting ${cases} cases`);
  const submitStarted = Date.now();
  await mapConcurrent(drainCases, CONCURRENCY, (prepared) => bench.submit(origin, prepared));
  const submitMs = Date.now() - submitStarted;
  const [[pendingJobs]] = await query('pending jobs', `select count(*) from identity.jobs where status = 'pending'`);
  const queued = await statusCounts('drain');
  if (Number(pendingJobs) !== cases || queued.EvidenceUploaded !== cases) throw new Error(`before the workers start: ${pendingJobs} pending jobs, statuses ${JSON.stringify(queued)} (expected ${cases} each)`);
  log(`1: ${cases} jobs pending; starting ${WORKERS} workers`);

  // The HTTP checks provider at the instant inference server.
  const checksEnv = {
    CHECKS_PROVIDER: 'http',
    CHECKS_OCR_URL: `${inferenceOrigin}/ocr`,
    CHECKS_FACE_MATCH_URL: `${inferenceOrigin}/face-match`,
    CHECKS_LIVENESS_URL: `${inferenceOrigin}/liveness`,
  };
  const onReady = (worker) => {
    drainStart ??= { at: worker.readyAt, machine: machineBusySeconds(), api: cpuSeconds(bench.service.pid), inference: cpuSeconds(bench.inference.pid) };
  };
  const spawnedAt = Date.now();
  for (let index = 0; index < WORKERS; index += 1) bench.startWorker(index, { env: checksEnv, onReady });
  const drainDeadline = Date.now() + drainTimeoutMs;
  let decided = 0;
  let polls = 0;
  while (decided < cases) {
    bench.assertWorkersAlive();
    if (Date.now() > drainDeadline) throw new Error(`only ${decided} of ${cases} cases decided within ${drainTimeoutMs / 1000} s: ${JSON.stringify(await statusCounts('drain'))}`);
    await sleep(polls === 0 ? 100 : 200);
    polls += 1;
    const [[count]] = await query('decided', `select count(*) from identity.verification_cases where external_reference like 'drain-%' and status not in (${UNDECIDED.map((status) => `'${status}'`).join(', ')})`);
    decided = Number(count);
  }
  const drainEnd = { at: Date.now(), machine: machineBusySeconds(), api: cpuSeconds(bench.service.pid), inference: cpuSeconds(bench.inference.pid), workers: workers.map((worker) => cpuSeconds(worker.child.pid)) };
  drainLoad.push(load1m());
  await Promise.race([Promise.all(workers.map((worker) => worker.ready)), sleep(5000)]);

  // Decision times as the workers recorded them (completedAt; updatedAt for a case sent to review).
  const decisionRows = await query(
    'decision times',
    `select id, status, (extract(epoch from coalesce(completed_at, updated_at)) * 1000)::bigint from identity.verification_cases where external_reference like 'drain-%'`,
  );
  const decisionsById = new Map(decisionRows.map(([id, status, at]) => [id, { status, at: Number(at) }]));
  for (const prepared of drainCases) prepared.decidedAt = decisionsById.get(prepared.caseId)?.at ?? null;
  const decisionTimes = drainCases.map((prepared) => prepared.decidedAt).filter((at) => at !== null);
  const firstDecision = Math.min(...decisionTimes);
  const lastDecision = Math.max(...decisionTimes);
  const readyTimes = workers.map((worker) => worker.readyAt).filter((at) => at !== null);
  const firstReady = readyTimes.length > 0 ? Math.min(...readyTimes) : spawnedAt;
  const allReady = readyTimes.length === WORKERS ? Math.max(...readyTimes) : null;
  const drainMs = lastDecision - firstReady;
  const afterAllReady = allReady === null ? null : decisionTimes.filter((at) => at >= allReady).length;

  const drain = {
    phase: 'drain',
    cases,
    ...environment,
    prepare: { seconds: seconds(prepareMs), casesPerSecond: perSecond(cases, prepareMs), requestsPerSecond: perSecond(cases * 5, prepareMs), concurrency: CONCURRENCY },
    submit: { seconds: seconds(submitMs), perSecond: perSecond(cases, submitMs) },
    workerReadyAfterMs: workers.map((worker) => (worker.readyAt === null ? null : worker.readyAt - spawnedAt)),
    // The headline: every job decided, from the moment the first worker could claim to the last decision.
    drainSeconds: seconds(drainMs),
    jobsPerSecond: perSecond(cases, drainMs),
    // Including the workers' start-up (node, database connection, migrations check).
    fromSpawnSeconds: seconds(lastDecision - spawnedAt),
    jobsPerSecondFromSpawn: perSecond(cases, lastDecision - spawnedAt),
    // Only the decisions made while both workers were claiming.
    bothWorkers: allReady === null ? null : { decisions: afterAllReady, seconds: seconds(lastDecision - allReady), jobsPerSecond: perSecond(afterAllReady, lastDecision - allReady) },
    firstToLastDecisionSeconds: seconds(lastDecision - firstDecision),
    statuses: await statusCounts('drain'),
    // Queueing, not service latency: every case waited for the workers to start.
    submitToDecisionMs: percentiles(drainCases.filter((prepared) => prepared.decidedAt !== null).map((prepared) => prepared.decidedAt - prepared.submittedAt), 0),
    cpu: drainCpu(drainStart, drainEnd),
    load1m: drainLoad,
  };
  console.log(JSON.stringify(drain));

  // ---- phase 2: submit→decision, one case at a time, workers running and idle ----

  const latencyLoad = [load1m()];
  log(`2: preparing ${latencyCases} cases`);
  const latencyPrepared = await mapConcurrent(
    Array.from({ length: latencyCases }, (_, index) => index),
    CONCURRENCY,
    (index) => bench.preparedCase(origin, auth, `latency-${index}`),
  );
  await sleep(QUEUE_POLL_MS + 500);
  log(`2: submitting ${latencyCases} cases one at a time, following each every ${LATENCY_POLL_MS} ms until decided`);
  const observedMs = [];
  const requestToDecisionMs = [];
  const submitRequestMs = [];
  for (const prepared of latencyPrepared) {
    bench.assertWorkersAlive();
    await sleep(randomInt(0, QUEUE_POLL_MS));
    await bench.submit(origin, prepared);
    const deadline = Date.now() + 30_000;
    let detail;
    for (;;) {
      detail = await expectJson(origin, 'GET', `${PARTNER}/verifications/${prepared.caseId}`, 200, { headers: auth });
      if (!UNDECIDED.includes(detail.status)) break;
      if (Date.now() > deadline) throw new Error(`case ${prepared.caseId} was not decided within 30 s of its submit (status ${detail.status})`);
      await sleep(LATENCY_POLL_MS);
    }
    const observedAt = Date.now();
    prepared.decidedAt = detail.completedAt ? Date.parse(detail.completedAt) : observedAt;
    prepared.status = detail.status;
    observedMs.push(observedAt - prepared.submittedAt);
    requestToDecisionMs.push(prepared.decidedAt - prepared.submitStartedAt);
    submitRequestMs.push(prepared.submittedAt - prepared.submitStartedAt);
  }
  latencyLoad.push(load1m());

  // The same interval measured on the server alone: the submit's event to the decision's event.
  const eventRows = await query(
    'event times',
    `select c.external_reference, (extract(epoch from d.occurred_at - s.occurred_at) * 1000)::numeric(12, 1)
       from identity.verification_cases c
       join identity.case_events s on s.case_id = c.id and s.event_type = 'verification.evidence_uploaded'
       join identity.case_events d on d.case_id = c.id and d.event_type in ('verification.approved', 'verification.rejected', 'verification.pending_manual_review', 'verification.failed')`,
  );
  const serverSide = (prefix) => eventRows.filter(([reference]) => reference.startsWith(`${prefix}-`)).map(([, ms]) => Number(ms));
  drain.serverSubmitToDecisionMs = percentiles(serverSide('drain'), 0);

  const latency = {
    phase: 'latency',
    cases: latencyCases,
    ...environment,
    pauseBeforeSubmitMs: [0, QUEUE_POLL_MS],
    pollMs: LATENCY_POLL_MS,
    // The headline: completedAt minus the moment the submit's answer arrived.
    submitToDecisionMs: percentiles(latencyPrepared.map((prepared) => prepared.decidedAt - prepared.submittedAt)),
    submitRequestStartToDecisionMs: percentiles(requestToDecisionMs),
    observedByPollingMs: percentiles(observedMs),
    serverEventToEventMs: percentiles(serverSide('latency')),
    submitRequestMs: percentiles(submitRequestMs),
    statuses: await statusCounts('latency'),
    load1m: latencyLoad,
  };
  console.log(JSON.stringify(latency));

  // ---- the check: every case Approved, exactly once ----

  const total = cases + latencyCases;
  const [[approvedEvents, approvedCases]] = await query('approved events', `select count(*), count(distinct case_id) from identity.case_events where event_type = 'verification.approved'`);
  const caseStatuses = Object.fromEntries((await query('case statuses', 'select status, count(*) from identity.verification_cases group by status')).map(([status, count]) => [status, Number(count)]));
  const jobRows = await query('jobs', 'select status, count(*), sum(attempt_count), max(attempt_count) from identity.jobs group by status');
  const jobs = Object.fromEntries(jobRows.map(([status, count, attempts, maxAttempts]) => [status, { jobs: Number(count), attempts: Number(attempts), maxAttempts: Number(maxAttempts) }]));
  const stats = await inferenceStats(inferenceOrigin);
  const inferenceCalls = { ocr: stats.ocr - inferenceBaseline.ocr, faceMatch: stats.faceMatch - inferenceBaseline.faceMatch, liveness: stats.liveness - inferenceBaseline.liveness };
  const problems = [];
  if (Number(approvedEvents) !== total || Number(approvedCases) !== total) problems.push(`${approvedEvents} verification.approved events for ${approvedCases} cases (expected ${total} for ${total})`);
  if (caseStatuses.Approved !== total || Object.keys(caseStatuses).length !== 1) problems.push(`case statuses ${JSON.stringify(caseStatuses)} (expected ${total} Approved only)`);
  if (jobs.succeeded?.jobs !== total || Object.keys(jobs).length !== 1) problems.push(`jobs ${JSON.stringify(jobs)} (expected ${total} succeeded only)`);
  for (const [endpoint, count] of Object.entries(inferenceCalls)) if (count !== total) problems.push(`${count} ${endpoint} calls (expected ${total})`);
  const workerWarnings = workers.reduce((sum, worker) => sum + worker.warnings, 0);
  const check = {
    phase: 'check',
    ok: problems.length === 0,
    expectedCases: total,
    approvedEvents: Number(approvedEvents),
    approvedCases: Number(approvedCases),
    caseStatuses,
    jobs,
    jobRetries: Object.values(jobs).reduce((sum, row) => sum + row.attempts - row.jobs, 0),
    inferenceCalls,
    workerWarnings,
    serviceLogLines: bench.service.output.lines,
    problems,
  };
  console.log(JSON.stringify(check));

  const ms = (figures) => `p50 ${figures.p50} ms, p95 ${figures.p95} ms (min ${figures.min}, max ${figures.max})`;
  console.log(`identity automated checks, postgres + ${environment.store}, ${WORKERS} worker processes, instant inference server (${environment.cpus} CPUs, node ${process.version})`);
  console.log(`  1  drain     ${cases} cases queued, then both workers started: ${drain.jobsPerSecond} jobs decided/s (${drain.drainSeconds} s from the first worker ready to the last decision)`);
  console.log(
    `               workers ready after ${drain.workerReadyAfterMs.join(' / ')} ms; ${drain.jobsPerSecondFromSpawn} jobs/s counting their start-up${drain.bothWorkers ? `; ${drain.bothWorkers.jobsPerSecond} jobs/s while both claimed (${drain.bothWorkers.decisions} decisions)` : ''}`,
  );
  if (drain.cpu) {
    const { cpu } = drain;
    console.log(
      `               CPU over the drain (${cpu.windowSeconds} s): machine ${cpu.machinePercent}% of ${environment.cpus * 100}%; workers ${cpu.workerSeconds.join(' / ')} s, API ${cpu.apiSeconds} s, inference ${cpu.inferenceSeconds} s, the rest (PostgreSQL, bench) ${cpu.restSeconds} s`,
    );
  }
  console.log(`               preparing took ${drain.prepare.seconds} s (${drain.prepare.requestsPerSecond} API requests/s), submitting ${drain.submit.seconds} s`);
  console.log(`  2  latency   ${latencyCases} cases submitted one at a time to idle workers: submit→decision ${ms(latency.submitToDecisionMs)}`);
  console.log(`               server-side (submit event → decision event) ${ms(latency.serverEventToEventMs)}; seen by ${LATENCY_POLL_MS} ms polling ${ms(latency.observedByPollingMs)}`);
  console.log(`               a submit NOTIFYs the job workers (identity_jobs), so they claim at once; their ${QUEUE_POLL_MS} ms poll is only the fallback`);
  console.log(
    `  check       ${check.ok ? 'ok' : 'FAILED'}: ${check.approvedEvents} verification.approved events for ${check.approvedCases} of ${total} cases; ${check.jobRetries} job retries; inference calls ${inferenceCalls.ocr}/${inferenceCalls.faceMatch}/${inferenceCalls.liveness}`,
  );
  for (const problem of problems) console.log(`               ${problem}`);
  console.log(
    `  1-minute load average ${drain.load1m.join(' -> ')} over 1, ${latency.load1m.join(' -> ')} over 2 (${environment.cpus} CPUs; the bench's own processes count in it: the first figure is the machine before the bench loaded it)`,
  );
  for (const worker of workers) {
    if (worker.warnings === 0) continue;
    console.log(`  worker ${worker.index + 1} logged ${worker.warnings} line(s) at warn or above; the last:`);
    for (const line of worker.warningTail.slice(-3)) console.log(`    ${line.slice(0, 300)}`);
  }
  if (bench.service.output.lines > 0) {
    console.log(`  the API logged ${bench.service.output.lines} line(s) at warn or above; the last:`);
    for (const line of bench.service.output.tail.slice(-3)) console.log(`    ${line.slice(0, 300)}`);
  }
  return check.ok;
}

await bench.run(main, { budgetSeconds });
