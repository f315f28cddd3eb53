// The pieces of services/identity/bench/webhooks.mjs around its two phases, apart from the drain
// itself: the helper processes it starts (webhook-receiver.mjs, and pg-activity-sampler.mjs for
// --pg-sample) with their controls, the queue (its counts; phase 1's N deliveries queued through
// the API or by SQL, the SQL bodies checked against two real ones) and phase 2's latency run (state
// changes on a fixed schedule, the receiver's arrivals matched to them). Not a bench of its own.
import { join } from 'node:path';
import { collectLines, firstJsonLine, load1m, mapConcurrent, percentiles, root, sleep, spawnTracked, stopChild } from '../../../bench/out-of-process.mjs';
import { benchDir, expectJson, expectResponse, log, PARTNER } from './identity-bench-setup.mjs';
import { p90, round } from './webhook-bench-report.mjs';

/** Requests in flight while --queue=api creates the cases. */
const CREATE_CONCURRENCY = 8;
const CASE_BODY = { documentType: 'SyrianPassport' };

// ---- the helper processes ----

/** webhook-receiver.mjs in its own process: its origin, its counts and receipts, and its controls. */
export async function startReceiver() {
  const child = spawnTracked(process.execPath, [join(benchDir, 'webhook-receiver.mjs')], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const { port } = await firstJsonLine(child, 'the webhook receiver', 15_000);
  child.output = collectLines(child);
  const origin = `http://127.0.0.1:${port}`;
  return {
    child,
    origin,
    /** Hands it the endpoint's signing secret; until then it answers 503. */
    setSecret: (secret) => child.stdin.write(`${JSON.stringify({ secret })}\n`),
    async stats() {
      const response = await fetch(`${origin}/stats`, { signal: AbortSignal.timeout(5000) });
      return response.json();
    },
    async receipts() {
      const response = await fetch(`${origin}/receipts`, { signal: AbortSignal.timeout(15_000) });
      const text = await response.text();
      return text ? text.split('\n').map((line) => JSON.parse(line)) : [];
    },
    async reset() {
      await fetch(`${origin}/reset`, { method: 'POST', signal: AbortSignal.timeout(5000) }).then((response) => response.arrayBuffer());
    },
    async stop() {
      child.stdin.end();
      await stopChild(child, 5000);
    },
  };
}

/** pg-activity-sampler.mjs on the run's database, every 10 ms: `start()` counting, `report()` what it counted. */
export async function startSampler(databaseUrl) {
  const child = spawnTracked(process.execPath, [join(benchDir, 'pg-activity-sampler.mjs'), databaseUrl, '10'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  await firstJsonLine(child, 'the PostgreSQL activity sampler', 15_000);
  return {
    child,
    start: () => child.stdin.write('start\n'),
    report() {
      const line = firstJsonLine(child, 'the PostgreSQL activity sampler', 15_000);
      child.stdin.write('stop\n');
      return line;
    },
    async stop() {
      child.stdin.end();
      await stopChild(child, 5000);
    },
  };
}

// ---- the queue ----

/** identity.webhook_deliveries by status. */
export async function queueCounts(query) {
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
async function insertDeliveries(query, { endpointId, tenantId, sandbox, count }) {
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

/**
 * Phase 1's queue, with no worker running: `deliveries` cases created through the API (`via` api),
 * or (sql) a case created and cancelled through the API and the other deliveries inserted by SQL,
 * their bodies checked against the API's two (same keys, same order, same types).
 */
export async function fillQueue({ via, deliveries, origin, auth, query, tenantId, endpointId }) {
  if (via === 'api') {
    log(`1: creating ${deliveries} cases through the API (${CREATE_CONCURRENCY} at a time), no worker running`);
    await mapConcurrent(
      Array.from({ length: deliveries }, (_, index) => index),
      CREATE_CONCURRENCY,
      (index) => expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { ...CASE_BODY, externalReference: `crm-customer-${String(index).padStart(8, '0')}/onboarding` }, headers: auth }),
    );
    return;
  }
  // Two real deliveries from the API: the template the SQL bodies are checked against.
  const created = await expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { ...CASE_BODY, externalReference: 'crm-customer-00000000/onboarding-real' }, headers: auth });
  await expectResponse(origin, 'POST', `${PARTNER}/verifications/${created.caseId}/cancel`, 204, { json: { reason: 'bench: customer withdrew' }, headers: auth });
  const [[sandbox]] = await query('tenant', `select sandbox from identity.tenants where id = ${sqlText(tenantId)}`);
  log(`1: inserting ${deliveries - 2} deliveries by SQL after the API's 2, no worker running`);
  await insertDeliveries(query, { endpointId, tenantId, sandbox: sandbox === 't', count: deliveries - 2 });
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

// ---- phase 2 ----

/** Phase 2: `changes` state changes on a fixed schedule, then the receiver's arrivals matched to them. */
export async function latencyRun({ label, mode, origin, auth, receiver, query, changes, intervalMs }) {
  await receiver.reset();
  const queued = await queueCounts(query);
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
  let stats = await receiver.stats();
  while (stats.received < changes && Date.now() < deadline) {
    await sleep(50);
    stats = await receiver.stats();
  }
  // A moment more, so a duplicate or a stray would be seen.
  await sleep(300);
  stats = await receiver.stats();
  const receipts = await receiver.receipts();
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
  return {
    phase: `latency-${mode}`,
    mode: mode === 'standalone' ? 'API WORKER_IN_PROCESS=false + 1 standalone worker' : 'API WORKER_IN_PROCESS=true (worker in the API process)',
    changes,
    intervalMs,
    changesSeconds: round(changesSeconds, 2),
    // The headline: receiver arrival − the event's timestamp field.
    changeToDeliveryMs: { ...percentiles(latencies, 1), p90: p90(latencies) },
    // The same arrival − the moment the API's answer reached the bench (negative: the webhook came first).
    answerToDeliveryMs: { ...percentiles(afterAnswer, 1), p90: p90(afterAnswer) },
    apiRequestMs: { ...percentiles(requestMs, 1), p90: p90(requestMs) },
    receiver: { received: stats.received, verified: stats.verified, failures: stats.failures, duplicates: stats.duplicates, attemptsAbove1: stats.attemptsAbove1 },
    queue: await queueCounts(query),
    load1m: [loadBefore, load1m()],
    ok: problems.length === 0,
    problems,
  };
}
