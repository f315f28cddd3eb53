// `pnpm soak [--minutes N] [--faults on|off] [--self-check] [--out dir]`: both services as a fleet on
// one machine (two identity APIs and two identity workers, two fx APIs and one fx worker, one
// PostgreSQL database, a Redis of its own, evidence on s3rver, a round-robin front per service, a
// webhook receiver that checks every signature), loaded all at once for N minutes (default 10):
// sandbox cases decided by the simulator, a trickle of a live tenant's cases (a real person, a
// replayed photo, a spliced video in turn) decided by the on-CPU checks (soak/live-cases.mjs),
// OCR corrections, tokens, endpoint churn and the fx lanes;
// with faults (default on): every 20-40 s an API or worker killed with SIGKILL and started again
// 2-5 s later (every process in turn, none spared), Redis restarted once, every PostgreSQL backend
// of one service terminated once, PostgreSQL itself stopped for 10 s once.
// Then the queues are drained (bounded) and the invariants checked and printed, each with its
// count; summary.json and report.html go to --out (default a new directory under the system's
// temporary directory). Exit 1 on any broken invariant, 3 when the harness itself failed (setup,
// a crash, its time budget), so a self-check can tell the two apart. --self-check adds a worker that acknowledges
// deliveries before sending (soak/doubles/): the run must then FAIL, else an invariant cannot fail.
// PostgreSQL: with faults on, a server of the soak's own (the machine's PostgreSQL binaries, a
// temporary data directory, a free port), so that it can be stopped for 10 s and started again;
// with faults off, the server DATABASE_URL names (default postgres://postgres@127.0.0.1:5432/postgres).
// A fresh database soak_<time>_<pid> is created there and dropped at the end. Needs `pnpm build`,
// redis-server and openssl on PATH.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { collectLines, cpuSeconds, freePort, killTracked, root, sleep, spawnTracked, stopChild } from '../bench/out-of-process.mjs';
import { freshDatabase } from '../bench/service-bench.mjs';
import { openDatabase } from './database.mjs';
import { injectFaults, LONG_RUN_MS } from './faults.mjs';
import { fleetSlot, rssKilobytes, startHelper, startRedis } from './fleet.mjs';
import { adminPoster, anonymousReader, createAlerts, keyedReader, keyedUsage, streamReader } from './fx-load.mjs';
import { caseLane, endpointLane, tokenLane } from './identity-load.mjs';
import * as invariants from './invariants.mjs';
import { LIVE_KINDS, liveEvidence, liveLane } from './live-cases.mjs';
import { requestSeries, writeReport } from './report.mjs';
import { fxKey, identityPartner, webhookEndpoint } from './setup.mjs';
import { createRecorder } from './traffic.mjs';

const log = (message) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function parseArguments(argv) {
  const options = { minutes: 10, faults: true, selfCheck: false, out: null };
  for (let index = 0; index < argv.length; index += 1) {
    const [name, inline] = argv[index].split('=');
    const value = () => inline ?? argv[++index];
    if (name === '--minutes') options.minutes = Number(value());
    else if (name === '--faults') options.faults = { on: true, off: false }[value()];
    else if (name === '--self-check') options.selfCheck = true;
    else if (name === '--out') options.out = value();
    else options.minutes = NaN;
  }
  if (!(options.minutes > 0 && options.minutes <= 24 * 60) || options.faults === undefined) {
    console.error('usage: pnpm soak [--minutes N (default 10)] [--faults on|off (default on)] [--self-check] [--out dir]');
    process.exit(2);
  }
  return options;
}

const options = parseArguments(process.argv.slice(2).filter((arg) => arg !== '--'));
const EVENT_TYPES = ['session_issued', 'capture_started', 'evidence_uploaded', 'automated_checks_running', 'pending_manual_review', 'approved', 'rejected', 'expired', 'cancelled'].map((type) => `verification.${type}`);
/** postgres.js pool per process (packages/db default) plus the one LISTEN connection a process may hold. */
const CONNECTIONS_PER_PROCESS = 10 + 1;

const workDir = mkdtempSync(join(tmpdir(), 'soak-'));
const outDir = options.out ?? join(workDir, 'report');
mkdirSync(outDir, { recursive: true });
/** The soak's own PostgreSQL server when faults are on (restarted as one of them), else null. */
let ownPostgres = null;
let database = null;
let sql;
let redis;
const slots = [];
const cleanupTasks = [];

async function cleanup() {
  await Promise.all(slots.map((slot) => slot.stop()));
  for (const task of cleanupTasks) await task().catch(() => undefined);
  if (redis) await stopChild(redis, 5000);
  await sql?.end({ timeout: 2 }).catch(() => undefined);
  killTracked('SIGKILL');
  await database?.drop();
  await ownPostgres?.destroy();
  if (!options.out) log(`report kept in ${outDir}`);
  rmSync(join(workDir, 's3'), { recursive: true, force: true });
}

async function main() {
  const startedSetupAt = Date.now();
  // First, so a soak that cannot make its live cases' evidence (no network for the real person's
  // recordings) stops at once, saying why.
  const evidence = await liveEvidence();
  log(`live evidence made in ${Math.round((Date.now() - startedSetupAt) / 1000)} s`);
  if (options.faults) {
    const { startPrivatePostgres } = await import(pathToFileURL(join(root, 'packages', 'db', 'dist', 'testing', 'private-postgres.js')).href);
    // Seven processes of 11 connections each, the harness's and the killed ones' not yet reaped.
    ownPostgres = await startPrivatePostgres({ settings: { max_connections: '300' } });
    log(`PostgreSQL of the soak's own at ${ownPostgres.url}`);
  }
  database = freshDatabase(ownPostgres?.url ?? (process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'), 'soak_');
  await database.create();
  sql = await openDatabase(database.url);
  const s3 = await startHelper('s3rver', 's3.mjs', [join(workDir, 's3'), 'soak-evidence']);
  const redisPort = await freePort();
  mkdirSync(join(workDir, 'redis'));
  redis = await startRedis(redisPort, join(workDir, 'redis'));
  const receiver = await startHelper('receiver', 'receiver.mjs');

  const common = { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${redisPort}`, SECRETS_KEY: randomBytes(32).toString('hex') };
  const identityEnv = {
    ...common, DATA_DIR: join(workDir, 'identity'), WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000000',
    // One client address (the harness) sends every upload: the per-IP cap is for the public internet.
    CAPTURE_UPLOADS_PER_IP: '1000', CAPTURE_UPLOADS_MAX: '1000',
    // Live cases are decided by the on-CPU models in whichever worker claims them, and the APIs give
    // the capture's quality hints with the same models, as deployed; sandbox cases never touch them.
    CHECKS_PROVIDER: 'local',
    // A check's time limit for a machine the whole fleet shares: at the default 30 s the liveness
    // check (a minute there) times out and every live case goes to review unjudged (decision 0903).
    CHECKS_TIMEOUT_MS: '150000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,1000,2000,5000,10000',
    EVIDENCE_S3_BUCKET: 'soak-evidence', EVIDENCE_S3_ENDPOINT: s3.origin, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const adminToken = randomBytes(24).toString('hex');
  const fxEnv = { ...common, DATA_DIR: join(workDir, 'fx'), FX_ADMIN_TOKEN: adminToken, ALERT_WORKER_IN_PROCESS: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  const script = (service, file) => join(root, 'services', service, 'dist', file);
  for (const index of [1, 2]) slots.push(fleetSlot({ name: `identity-api-${index}`, service: 'identity', kind: 'api', script: script('identity', 'server.js'), env: identityEnv, healthPath: '/health' }));
  for (const index of [1, 2]) slots.push(fleetSlot({ name: `identity-worker-${index}`, service: 'identity', kind: 'worker', script: script('identity', 'worker.js'), env: { ...identityEnv, LOG_LEVEL: 'info' }, readyLine: 'identity-worker started' }));
  for (const index of [1, 2]) slots.push(fleetSlot({ name: `fx-api-${index}`, service: 'fx', kind: 'api', script: script('fx', 'server.js'), env: fxEnv, healthPath: '/api/v1/health' }));
  slots.push(fleetSlot({ name: 'fx-worker-1', service: 'fx', kind: 'worker', script: script('fx', 'worker.js'), env: { ...fxEnv, LOG_LEVEL: 'info' }, readyLine: 'fx-worker started' }));
  // The first instance of each service migrates its schema alone; the rest start together.
  await slots[0].start();
  await slots[4].start();
  await Promise.all(slots.filter((slot) => slot.starts === 0).map((slot) => slot.start()));
  const identityFront = await startHelper('identity front', 'front.mjs', slots.filter((slot) => slot.service === 'identity' && slot.kind === 'api').map((slot) => slot.origin()));
  const fxFront = await startHelper('fx front', 'front.mjs', slots.filter((slot) => slot.service === 'fx' && slot.kind === 'api').map((slot) => slot.origin()));
  log(`fleet up in ${Math.round((Date.now() - startedSetupAt) / 1000)} s: ${slots.map((slot) => `${slot.name} ${slot.child.pid}`).join(', ')}`);

  const partner = await identityPartner(identityFront.origin, { ...process.env, ...identityEnv }, workDir, { name: 'Soak', slug: 'soak', sandbox: true });
  const livePartner = await identityPartner(identityFront.origin, { ...process.env, ...identityEnv }, workDir, { name: 'Soak Live', slug: 'soak-live', sandbox: false });
  const steady = await webhookEndpoint(identityFront.origin, partner, receiver, 'steady', EVENT_TYPES);
  const toggled = await webhookEndpoint(identityFront.origin, partner, receiver, 'toggled', ['verification.approved', 'verification.cancelled']);
  const liveEndpoint = await webhookEndpoint(identityFront.origin, livePartner, receiver, 'live', EVENT_TYPES);
  const key = await fxKey({ ...process.env, ...fxEnv });
  const alertKey = await fxKey({ ...process.env, ...fxEnv });

  if (options.selfCheck) {
    const double = spawnTracked(process.execPath, [join(root, 'soak', 'doubles', 'ack-before-send-worker.mjs'), database.url], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    double.output = collectLines(double);
    cleanupTasks.push(() => stopChild(double, 5000));
    log('self-check: a worker that acknowledges deliveries before sending is running; this run must fail');
  }

  const recorder = createRecorder();
  const startedAt = Date.now();
  const endAt = startedAt + options.minutes * 60_000;
  const running = () => Date.now() < endAt;
  const identityContext = {
    recorder, origin: identityFront.origin, running, auth: () => partner.headers, thumbprint: partner.thumbprint, clientId: partner.clientId,
    caseIdsByKey: new Map(), tokenChecks: { revoked: 0, usesAfterRevocation: 0 }, corrections: { made: [], withoutFields: 0 },
  };
  const liveContext = { ...identityContext, auth: () => livePartner.headers, live: { submitted: [], outcomes: {} } };
  const fxContext = { recorder, origin: fxFront.origin, running, key, adminToken, keyed: { answered: 0, uncertain: 0, duringRedisOutage: 0 }, redisOutage: false, ratePosts: 0, streams: { opened: 0, events: 0 }, stopSignal: AbortSignal.timeout(endAt - Date.now()) };

  await createAlerts(fxContext, alertKey, receiver);

  const samples = { rss: {}, cpu: {}, queues: [], connections: [] };
  const sampler = setInterval(async () => {
    const at = Date.now();
    for (const slot of slots) {
      const kb = slot.alive() ? rssKilobytes(slot.child.pid) : null;
      if (kb !== null) (samples.rss[`${slot.name}#${slot.starts}`] ??= []).push({ at, kb });
      const cpu = slot.alive() ? cpuSeconds(slot.child.pid) : null;
      if (cpu !== null) samples.cpu[`${slot.name}#${slot.starts}`] = { startedAt: slot.instances.at(-1).startedAt, at, cpu };
    }
    try {
      const [row] = await sql`select
        (select count(*)::int from identity.webhook_deliveries where status in ('pending', 'in_flight')) as "webhookDeliveries",
        (select count(*)::int from identity.jobs where status in ('pending', 'in_flight')) as jobs,
        (select count(*)::int from fx.alert_deliveries where status in ('pending', 'in_flight')) as "fxDeliveries",
        (select count(*)::int from pg_stat_activity where datname = current_database() and application_name like 'svc-%') as connections`;
      samples.queues.push({ at, webhookDeliveries: row.webhookDeliveries, jobs: row.jobs, fxDeliveries: row.fxDeliveries });
      samples.connections.push({ at, connections: row.connections });
    } catch {
      // the sampler's own connection was terminated by the fault: the next sample reconnects
    }
  }, 5000);

  const lanes = [
    ...[1, 2, 3].map((lane) => caseLane(identityContext, lane)),
    liveLane(liveContext, evidence),
    tokenLane(identityContext),
    endpointLane(identityContext, toggled.endpointId),
    anonymousReader(fxContext),
    keyedReader(fxContext),
    adminPoster(fxContext),
    streamReader(fxContext),
  ];
  const faults = [];
  const faulting = options.faults ? injectFaults({ slots, redisRestart: async (downMs) => {
    fxContext.redisOutage = true;
    try {
      await restartRedis(redisPort, workDir, downMs);
      // The services' clients reconnect with a back-off: answers just after the start may still be counted in memory.
      await sleep(10_000);
    } finally {
      fxContext.redisOutage = false;
    }
  }, pgRestart: ownPostgres && (async (downMs) => {
    await ownPostgres.stop();
    await sleep(downMs);
    await ownPostgres.start();
  }), sql, running, startedAt, endAt, faults, log }) : Promise.resolve();
  log(`load running for ${options.minutes} min, faults ${options.faults ? 'on' : 'off'}`);
  const progress = setInterval(() => log(`${recorder.requests.length} requests, ${faults.length} faults, ${identityContext.caseIdsByKey.size} case keys, ${liveContext.live.submitted.length} live cases`), 30_000);

  await faulting;
  await sleep(Math.max(0, endAt - Date.now()));
  await Promise.race([Promise.allSettled(lanes), sleep(120_000)]);
  clearInterval(progress);
  clearInterval(sampler);
  // Whatever a fault left down is up again before the queues are judged.
  await Promise.all(slots.filter((slot) => !slot.alive()).map((slot) => slot.start()));

  log('load stopped; waiting for the queues to drain (at most 5 min)');
  const drainDeadline = Date.now() + 300_000;
  for (;;) {
    const [row] = await sql`select (select count(*)::int from identity.webhook_deliveries where status in ('pending', 'in_flight'))
      + (select count(*)::int from identity.jobs where status in ('pending', 'in_flight'))
      + (select count(*)::int from fx.alert_deliveries where status in ('pending', 'in_flight')) as waiting`;
    if (row.waiting === 0 || Date.now() > drainDeadline) break;
    await sleep(500);
  }

  const receipts = (await (await fetch(`${receiver.origin}/receipts`)).text()).split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const headersOfTenant = new Map([partner, livePartner].map((tenant) => [tenant.tenantId, tenant.headers]));
  /**
   * A partner GET through the front, retried over a lost connection (the front's own 502 is one, as
   * for the load's requests) and after a 503 that asks for a retry; `read` of a 200 answer, else
   * null, with the answer logged so a broken invariant says what the service answered.
   */
  const partnerGet = async (path, headers, read) => {
    let last = 'no answer';
    for (let attempt = 0; attempt < 3; attempt += 1) {
      let waitMs = 500;
      try {
        const response = await fetch(`${identityFront.origin}/api/partner/v1${path}`, { headers, signal: AbortSignal.timeout(30_000) });
        if (response.status === 200) return await read(response);
        const body = (await response.text()).slice(0, 300);
        const lostConnection = response.status === 502 && response.headers.get('x-soak-front') === 'upstream-error';
        // A 503 with Retry-After is the service saying a dependency dropped the request's connection (a
        // PostgreSQL backend the faults terminated, say): a client retries it, as the answer asks.
        const retryAfter = response.status === 503 ? response.headers.get('retry-after') : null;
        if (!lostConnection && !retryAfter) {
          log(`GET ${path}: ${response.status} ${body}`);
          return null;
        }
        last = lostConnection ? 'the front lost its connection to the instance' : `503 ${body}`;
        if (retryAfter) {
          waitMs = Math.min(Number(retryAfter) || 1, 5) * 1000;
          log(`GET ${path}: 503, retried after ${waitMs / 1000} s as asked`);
        }
      } catch (error) {
        last = String(error?.cause?.code ?? error?.name ?? error);
      }
      await sleep(waitMs);
    }
    log(`GET ${path}: ${last}, 3 times`);
    return null;
  };
  const download = (evidenceId, tenantId) => partnerGet(`/evidence/${evidenceId}/file`, headersOfTenant.get(tenantId), async (response) => Buffer.from(await response.arrayBuffer()));
  const partnerJson = (correction, path) => partnerGet(path, correction.auth(), (response) => response.json());
  const counted = await keyedUsage(fxContext);
  const liveRows = await invariants.liveCaseRows(sql, liveContext.live.submitted);
  const results = [
    await invariants.casesExplainedByHistory(sql),
    await invariants.oneCasePerKey(sql, identityContext.caseIdsByKey),
    await invariants.everyEventDelivered(sql, steady, receipts),
    await invariants.everyEventDelivered(sql, liveEndpoint, receipts),
    invariants.liveCasesSettled(liveRows, liveContext.live.submitted),
    invariants.realPersonNeverRejected(liveRows),
    invariants.replaysNeverApproved(liveRows),
    await invariants.ocrCorrectionsVisible(identityContext.corrections, partnerJson),
    await invariants.everyAlertFiringSettled(sql, receipts),
    invariants.duplicatesPerWorkerKill(receipts, faults),
    invariants.revokedTokensRefused(recorder, identityContext.tokenChecks),
    invariants.noServerErrors(recorder, faults),
    await invariants.evidenceReadable(sql, download),
    invariants.keyedCounters(fxContext.keyed, counted),
    invariants.connectionsWithinPools(samples.connections, slots.length * CONNECTIONS_PER_PROCESS),
    // A 3-minute run judges 90 s of each life, across the PostgreSQL restart: one such run measured an
    // identity API at +11.4 %, which 90 s cannot tell from a higher allocator high-water mark after the
    // retries that follow the restart. Runs of 10 minutes or more judge growth at 10 %, short ones at 20 %.
    invariants.rssStable(samples.rss, { halfAt: startedAt + (endAt - startedAt) / 2 }, endAt - startedAt >= LONG_RUN_MS ? 0.1 : 0.2),
  ];
  const series = requestSeries(recorder.requests, startedAt);
  const passed = results.every((entry) => entry.ok);
  const summary = {
    passed, minutes: options.minutes, faults: options.faults ? 'on' : 'off', selfCheck: options.selfCheck,
    requests: { total: recorder.requests.length, perSecond: Number((recorder.requests.length / (options.minutes * 60)).toFixed(1)), byStatus: countStatuses(recorder.requests) },
    latencyMs: Object.fromEntries(['identity', 'fx'].map((service) => [service, invariantsFreeLatency(recorder.requests, service)])),
    cases: identityContext.caseIdsByKey.size, liveCases: { submitted: liveContext.live.submitted.length, byKind: invariants.liveOutcomesByKind(liveRows, LIVE_KINDS), harnessSaw: liveContext.live.outcomes },
    ocrCorrections: identityContext.corrections.made.length, ratePosts: fxContext.ratePosts, streams: fxContext.streams, faultsInjected: faults,
    peakRssMb: Object.fromEntries(slots.map((slot) => [slot.name, Math.round(Math.max(0, ...Object.entries(samples.rss).filter(([name]) => name.startsWith(`${slot.name}#`)).flatMap(([, list]) => list.map((sample) => sample.kb))) / 1024)])),
    // Mean CPU of each slot over the run (100 = one core), from its instances' /proc counters: the basis of resource requests.
    meanCpuPercent: Object.fromEntries(slots.map((slot) => {
      const instances = Object.entries(samples.cpu).filter(([name]) => name.startsWith(`${slot.name}#`)).map(([, sample]) => sample);
      const busy = instances.reduce((sum, sample) => sum + sample.cpu, 0);
      const lived = instances.reduce((sum, sample) => sum + (sample.at - sample.startedAt) / 1000, 0);
      return [slot.name, lived > 0 ? Math.round((busy / lived) * 100) : null];
    })),
    peakConnections: Math.max(0, ...samples.connections.map((sample) => sample.connections)),
    unexpectedAnswers: { count: recorder.unexpected.length, first: recorder.unexpected.slice(0, 10) },
    invariants: results,
  };
  writeReport(outDir, summary, { series, queueSamples: samples.queues, rssSamples: samples.rss, faults, startedAt, durationSeconds: Math.round((endAt - startedAt) / 1000) });
  for (const entry of results) console.log(`${entry.ok ? 'ok     ' : 'BROKEN '} ${entry.name}: ${entry.count}  ${JSON.stringify(entry.detail).slice(0, 300)}`);
  console.log(`live cases by input kind: ${JSON.stringify(summary.liveCases.byKind)}`);
  console.log(`${passed ? 'PASSED' : 'FAILED'}: ${recorder.requests.length} requests, ${faults.length} faults; ${join(outDir, 'summary.json')}, ${join(outDir, 'report.html')}`);
  return passed;
}

function countStatuses(requests) {
  const counts = {};
  for (const entry of requests) {
    const key = entry.connectionError ? 'connection error' : String(entry.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function invariantsFreeLatency(requests, service) {
  const values = requests.filter((entry) => entry.service === service && !entry.connectionError).map((entry) => entry.ms).sort((a, b) => a - b);
  const at = (p) => (values.length === 0 ? null : Math.round(values[Math.min(values.length - 1, Math.ceil(p * values.length) - 1)]));
  return { count: values.length, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** SHUTDOWN (SIGTERM: the append-only file is complete), `downMs` without it, then the same server on the same port. */
async function restartRedis(port, directory, downMs) {
  await stopChild(redis, 10_000);
  await sleep(downMs);
  redis = await startRedis(port, join(directory, 'redis'));
}

// The whole run is bounded: the load, a drain of at most 5 minutes, setup and checks.
const watchdog = setTimeout(() => {
  log('watchdog: the run overran its budget');
  cleanup().finally(() => process.exit(3));
}, (options.minutes * 60 + 900) * 1000);
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => cleanup().finally(() => process.exit(130)));

main()
  .then(async (passed) => {
    clearTimeout(watchdog);
    await cleanup();
    process.exit(passed ? 0 : 1);
  })
  .catch(async (error) => {
    clearTimeout(watchdog);
    log(`failed: ${error.stack ?? error}`);
    await cleanup();
    process.exit(3);
  });
