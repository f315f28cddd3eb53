// The invariants the soak checks at the end, each as {name, ok, count, detail}: read from the
// database (the source of truth), the receiver's receipts and what the harness itself recorded.
import { createHash } from 'node:crypto';
import { mapConcurrent } from '../bench/out-of-process.mjs';

const STATE_OF_EVENT = {
  'verification.session_issued': 'SessionIssued',
  'verification.capture_started': 'CaptureStarted',
  'verification.evidence_uploaded': 'EvidenceUploaded',
  'verification.automated_checks_running': 'AutomatedChecksRunning',
  'verification.pending_manual_review': 'PendingManualReview',
  'verification.approved': 'Approved',
  'verification.rejected': 'Rejected',
  'verification.expired': 'Expired',
  'verification.failed': 'Failed',
  'verification.cancelled': 'Cancelled',
};

const result = (name, ok, count, detail = {}) => ({ name, ok, count, detail });
const countBy = (list, keyOf) => list.reduce((counts, item) => ({ ...counts, [keyOf(item)]: (counts[keyOf(item)] ?? 0) + 1 }), {});

/** Every case's status is the state its newest state event reached (redaction events are not states). */
export async function casesExplainedByHistory(sql) {
  const stateEvents = Object.keys(STATE_OF_EVENT);
  const rows = await sql`
    select c.id, c.status, (select e.event_type from identity.case_events e
                             where e.case_id = c.id and e.event_type = any(${stateEvents})
                             order by e.occurred_at desc, e.id desc limit 1) as last_event
    from identity.verification_cases c`;
  const unexplained = rows.filter((row) => STATE_OF_EVENT[row.last_event] !== row.status);
  return result('every case in a state its history explains', unexplained.length === 0, rows.length, { unexplained: unexplained.slice(0, 10) });
}

/** One case per idempotency key: in the database, and in every answer the harness got for a key. */
export async function oneCasePerKey(sql, caseIdsByKey) {
  const [{ duplicated }] = await sql`select count(*)::int as duplicated from (select 1 from identity.verification_cases group by tenant_id, idempotency_key having count(*) > 1) d`;
  const split = [...caseIdsByKey].filter(([, ids]) => ids.size > 1).map(([key, ids]) => ({ key, ids: [...ids] }));
  return result('one case per idempotency key', duplicated === 0 && split.length === 0, caseIdsByKey.size, { keysWithSeveralCasesInDatabase: duplicated, keysAnsweredWithSeveralCases: split.slice(0, 10) });
}

/**
 * Every event of an always-active endpoint's tenant fanned out to it, and every such delivery
 * received with a valid signature; duplicates (a delivery received more than once) are counted.
 */
export async function everyEventDelivered(sql, { endpointId, endpointName, tenantId, subscribedTypes, subscribedAt }, receipts) {
  // A delivery's payload names its event as evt_<case_events.id>: matched by equality (a hash join),
  // since a LIKE per pair took minutes once a run had tens of thousands of each.
  const missingFanOut = await sql`
    with delivered as (select d.payload::jsonb ->> 'eventId' as event_id from identity.webhook_deliveries d where d.subscription_id = ${endpointId})
    select e.id from identity.case_events e
    where e.tenant_id = ${tenantId} and e.event_type = any(${subscribedTypes}) and e.occurred_at >= ${subscribedAt}
      and not exists (select 1 from delivered where delivered.event_id = 'evt_' || e.id::text)`;
  const deliveries = await sql`select id::text, status from identity.webhook_deliveries where subscription_id = ${endpointId}`;
  const received = new Map();
  let badSignatures = 0;
  for (const receipt of receipts) {
    if (receipt.name !== endpointName) continue;
    if (!receipt.ok) badSignatures += 1;
    else received.set(receipt.deliveryId, (received.get(receipt.deliveryId) ?? 0) + 1);
  }
  const notReceived = deliveries.filter((delivery) => !received.has(delivery.id));
  const duplicates = [...received.values()].reduce((sum, times) => sum + times - 1, 0);
  const ok = missingFanOut.length === 0 && notReceived.length === 0 && badSignatures === 0 && deliveries.length > 0;
  return result(`every case event delivered to every subscribed endpoint, signature valid (${endpointName})`, ok, deliveries.length, {
    eventsWithoutDelivery: missingFanOut.length,
    deliveriesNotReceived: notReceived.length,
    notReceivedByStatus: countBy(notReceived, (delivery) => delivery.status),
    badSignatures,
    duplicates,
  });
}

/** Deliveries a killed delivery worker may leave for another worker to send again (the leased queue's SETTLE_BATCH). */
export const DUPLICATES_PER_WORKER_KILL = 8;

/**
 * Deliveries received more than once, counted per kill of a delivery worker (a `*-worker-*` slot):
 * a repeated receipt belongs to the latest kill of a worker of its service between the delivery's
 * previous receipt and it (the killed worker sent it, another sent it again). Repeats with no such
 * kill between (a settle lost to terminated PostgreSQL sessions, a lease lost on a starved
 * machine) are reported, not judged: they are at-least-once delivery, not a crash's doing.
 */
export function duplicatesPerWorkerKill(receipts, faults, bound = DUPLICATES_PER_WORKER_KILL) {
  const serviceOf = (name) => (name.startsWith('fx-') ? 'fx' : 'identity');
  const kills = faults
    .filter((fault) => fault.kind === 'kill' && fault.target.includes('-worker-'))
    .map((fault) => ({ at: fault.at, target: fault.target, service: serviceOf(fault.target), duplicates: 0 }))
    .sort((a, b) => a.at - b.at);
  const byDelivery = new Map();
  for (const receipt of receipts) {
    if (!receipt.ok || !receipt.deliveryId) continue;
    const key = `${serviceOf(receipt.name)} ${receipt.deliveryId}`;
    byDelivery.set(key, [...(byDelivery.get(key) ?? []), receipt]);
  }
  let duplicates = 0;
  const unattributed = [];
  for (const [key, list] of byDelivery) {
    if (list.length < 2) continue;
    const service = key.split(' ')[0];
    list.sort((a, b) => a.at - b.at);
    for (let index = 1; index < list.length; index += 1) {
      duplicates += 1;
      const [previous, repeat] = [list[index - 1], list[index]];
      const kill = kills.findLast((candidate) => candidate.service === service && candidate.at >= previous.at && candidate.at <= repeat.at);
      if (kill) kill.duplicates += 1;
      else unattributed.push({ name: repeat.name, deliveryId: repeat.deliveryId, attempts: [previous.attempt, repeat.attempt], at: repeat.at });
    }
  }
  const worst = Math.max(0, ...kills.map((kill) => kill.duplicates));
  // Without timestamps on receipts (an older receiver) nothing can be attributed: broken rather than vacuously kept.
  const timed = receipts.every((receipt) => typeof receipt.at === 'number');
  return result(`at most ${bound} deliveries received twice per delivery-worker kill`, timed && worst <= bound, kills.length, {
    worstKill: worst,
    meanPerKill: kills.length > 0 ? Number((kills.reduce((sum, kill) => sum + kill.duplicates, 0) / kills.length).toFixed(1)) : 0,
    perKill: kills.map((kill) => ({ target: kill.target, at: kill.at, duplicates: kill.duplicates })),
    duplicates,
    notAfterAWorkerKill: unattributed.length,
    notAfterAWorkerKillFirst: unattributed.slice(0, 5),
    ...(timed ? {} : { receiptsWithoutTime: receipts.filter((receipt) => typeof receipt.at !== 'number').length }),
  });
}

/** Every fx alert firing either received with a valid signature or given up after its attempts; none left waiting. */
export async function everyAlertFiringSettled(sql, receipts) {
  const deliveries = await sql`select id::text, status, attempt_count, max_attempts from fx.alert_deliveries`;
  const received = new Set(receipts.filter((receipt) => receipt.name.startsWith('fx-') && receipt.ok).map((receipt) => receipt.deliveryId));
  const badSignatures = receipts.filter((receipt) => receipt.name.startsWith('fx-') && !receipt.ok).length;
  const lost = deliveries.filter((delivery) => delivery.status === 'succeeded' && !received.has(delivery.id));
  const givenUpEarly = deliveries.filter((delivery) => delivery.status === 'failed' && delivery.attempt_count < delivery.max_attempts);
  const waiting = deliveries.filter((delivery) => delivery.status === 'pending' || delivery.status === 'in_flight');
  const ok = deliveries.length > 0 && lost.length === 0 && givenUpEarly.length === 0 && waiting.length === 0 && badSignatures === 0;
  return result('every fx alert firing delivered or given up as its schedule says', ok, deliveries.length, {
    delivered: deliveries.filter((delivery) => delivery.status === 'succeeded').length,
    givenUp: deliveries.filter((delivery) => delivery.status === 'failed').length,
    succeededButNotReceived: lost.length,
    givenUpBeforeLastAttempt: givenUpEarly.length,
    stillWaiting: waiting.length,
    badSignatures,
  });
}

export function revokedTokensRefused(recorder, tokenChecks) {
  const accepted = recorder.violations.revokedTokenAccepted;
  return result('no token used successfully after its revocation was acknowledged', accepted.length === 0 && tokenChecks.revoked > 0, tokenChecks.revoked, { usesAfterRevocation: tokenChecks.usesAfterRevocation, accepted: accepted.slice(0, 10) });
}

/**
 * 5xx a service sent, outside the dying moments of a killed instance (`graceMs` after the kill)
 * or of the PostgreSQL sessions of a service terminated under it (requests of that service started
 * up to 5 s before and `graceMs` after: a transaction in flight on a terminated session fails),
 * and other than a 503 while PostgreSQL was restarting (until `graceMs` after it was back);
 * connection errors apart.
 */
export function noServerErrors(recorder, faults, graceMs = 2000) {
  const windows = faults.flatMap((fault) => {
    if (fault.kind === 'kill') return [{ from: fault.at - 100, to: fault.at + graceMs, service: null }];
    if (fault.kind === 'pg-terminate') return [{ from: fault.at - 5000, to: fault.at + graceMs, service: fault.target.split(' ')[0] }];
    // While PostgreSQL is away both services answer 503 (with Retry-After), and only that: a 500 then is still a fault.
    // Requests in flight when it stopped (a fast shutdown ends their sessions) are in it too, as for terminated sessions.
    if (fault.kind === 'pg-restart') return [{ from: fault.at - 5000, to: (fault.until ?? Date.now()) + graceMs, service: null, only: 503 }];
    return [];
  });
  const dying = (entry) =>
    windows.some((window) => (window.service === null || window.service === entry.service) && entry.at >= window.from && entry.at <= window.to && (window.only === undefined || window.only === entry.status));
  const serverErrors = recorder.requests.filter((entry) => !entry.connectionError && entry.status >= 500);
  const outside = serverErrors.filter((entry) => !dying(entry));
  const connectionErrors = recorder.requests.filter((entry) => entry.connectionError).length;
  const byRoute = countBy(outside, (entry) => `${entry.status} ${entry.route}`);
  const inDyingMoments = countBy(serverErrors.filter(dying), (entry) => `${entry.status} ${entry.route}`);
  // Where each of the first few fell, against the fault before it: enough to tell a late answer from a real defect.
  const placed = outside.slice(0, 10).map((entry) => {
    const before = faults.filter((fault) => fault.at <= entry.at).at(-1);
    return { route: entry.route, status: entry.status, at: new Date(entry.at).toISOString(), ms: Math.round(entry.ms), afterFault: before ? `${before.kind} ${before.target} +${entry.at - before.at} ms` : null };
  });
  return result('no 5xx outside the dying moments of a killed instance or terminated sessions', outside.length === 0, recorder.requests.length, { serverErrors: serverErrors.length, outsideDyingMoments: outside.length, byRoute, outsideFirst: placed, inDyingMoments, connectionErrors });
}

/** Every stored evidence object of a case not handed to redaction downloads (by its tenant) with its recorded SHA-256. */
export async function evidenceReadable(sql, download) {
  const rows = await sql`
    select v.id::text, v.sha256_hash, c.tenant_id::text from identity.evidence v join identity.verification_cases c on c.id = v.case_id
    where c.redaction_requested_at is null`;
  const mismatched = [];
  // A few at a time: a long run stores thousands of objects, and each download decrypts through an API.
  await mapConcurrent(rows, 8, async (row) => {
    const bytes = await download(row.id, row.tenant_id);
    const digest = bytes === null ? null : createHash('sha256').update(bytes).digest('hex');
    if (digest !== row.sha256_hash) mismatched.push({ evidenceId: row.id, got: digest === null ? 'unreadable' : 'other bytes' });
  });
  return result('every evidence object readable with its recorded SHA-256', mismatched.length === 0 && rows.length > 0, rows.length, { mismatched: mismatched.slice(0, 10), mismatchedCount: mismatched.length });
}

export function connectionsWithinPools(samples, bound) {
  const peak = Math.max(0, ...samples.map((sample) => sample.connections));
  return result('PostgreSQL connections never above the configured pool sizes summed', peak <= bound, samples.length, { peak, bound });
}

/**
 * RSS growth of each process instance over its own life in the second half of the run: from the
 * half (for an instance started with the fleet, before the load) or from `warmUpMs` after its
 * first sample if that is later (an instance started again after a kill, under load), to its last
 * sample (its end, whether the run's or a kill's); the mean of its last three samples against the
 * mean of its first three. An instance is judged when that span holds at least six samples (25 s
 * or more); a shorter life is counted as not judged. The half keeps the load's ramp out; the
 * warm-up keeps out what a start loads (the on-CPU models, the JIT), which is not a leak.
 */
export function rssStable(rssSamples, { halfAt }, limit = 0.1, warmUpMs = 120_000) {
  const percent = Math.round(limit * 100);
  const fleetStartedBy = Math.min(...Object.values(rssSamples).map((samples) => samples[0].at)) + 5000;
  const growth = [];
  let notJudged = 0;
  for (const [key, samples] of Object.entries(rssSamples)) {
    const from = samples[0].at <= fleetStartedBy ? halfAt : Math.max(halfAt, samples[0].at + warmUpMs);
    const span = samples.filter((sample) => sample.at >= from);
    if (span.length < 6 || span.at(-1).at - span[0].at < 25_000) {
      notJudged += 1;
      continue;
    }
    const mean = (list) => list.reduce((sum, sample) => sum + sample.kb, 0) / list.length;
    growth.push({ process: key, growth: Number((mean(span.slice(-3)) / mean(span.slice(0, 3)) - 1).toFixed(3)) });
  }
  const worst = growth.filter((entry) => entry.growth >= limit);
  return result(`each process's RSS over its own life in the second half growing less than ${percent}%`, worst.length === 0 && growth.length > 0, growth.length, { growth, notJudged, limit });
}

/**
 * The counter may include requests whose answer was lost to a kill (`uncertain`), never more; it
 * may miss those answered while Redis was stopped (`duringRedisOutage`: counted per instance in
 * memory meanwhile, as docs/operations.md says), never others.
 */
export function keyedCounters({ answered, uncertain, duringRedisOutage = 0 }, counted) {
  const ok = counted !== null && counted >= answered - duringRedisOutage && counted <= answered + uncertain;
  return result('per-key monthly counter equal to the requests the harness made with the key', ok, answered, { answered, lostAnswers: uncertain, duringRedisOutage, counter: counted });
}

/**
 * Every OCR correction the service answered 200 is on the case: the corrected value in the case
 * detail's OCR fields, and a `verification.ocr_fields_corrected` entry in its history with that
 * value and the one it replaced. `read(correction, path)` answers the JSON of a partner GET or null.
 */
export async function ocrCorrectionsVisible({ made, withoutFields }, read) {
  const missing = [];
  await mapConcurrent(made, 4, async (correction) => {
    const detail = await read(correction, `/verifications/${correction.caseId}`);
    const history = await read(correction, `/verifications/${correction.caseId}/history`);
    const fields = detail?.ocrResult ? JSON.parse(detail.ocrResult.extractedFieldsJson) : null;
    const entry = history?.data?.find((item) => item.action === 'verification.ocr_fields_corrected' && item.detail?.fields?.[correction.field] === correction.value);
    const problems = [
      ...(fields?.[correction.field] === correction.value ? [] : ['not on the case detail']),
      ...(entry ? [] : ['not in the history']),
      ...(entry && entry.detail?.before?.fields?.[correction.field] !== correction.before ? ['history without the value it replaced'] : []),
    ];
    if (problems.length > 0) missing.push({ caseId: correction.caseId, field: correction.field, problems });
  });
  return result('every OCR correction visible on the case detail and in its history', missing.length === 0 && made.length > 0, made.length, { missing: missing.slice(0, 10), missingCount: missing.length, casesWithoutOcrFields: withoutFields });
}

const LIVE_SETTLED = new Set(['Approved', 'Rejected', 'PendingManualReview']);

/**
 * The live cases the harness submitted as the database holds them (the source of truth), each
 * with its input kind and drawn side, the models that scored it and what the liveness check said.
 */
export async function liveCaseRows(sql, submitted) {
  const asSubmitted = new Map(submitted.map((entry) => [entry.caseId, entry]));
  const rows = submitted.length === 0 ? [] : await sql`
    select c.id::text, c.status, c.decision_reason, o.model_name as ocr_model, l.model_name as liveness_model,
      l.liveness_score, l.presentation_attack_detected, l.attack_type, l.inference_latency_ms
    from identity.verification_cases c
      left join identity.ocr_results o on o.case_id = c.id
      left join identity.liveness_results l on l.case_id = c.id
    where c.id = any(${[...asSubmitted.keys()]}::uuid[])`;
  return rows.map((row) => ({ ...row, kind: asSubmitted.get(row.id).kind, side: asSubmitted.get(row.id).side }));
}

const OUTCOME_OF_STATUS = { Approved: 'approved', PendingManualReview: 'review', Rejected: 'rejected', Failed: 'failed' };

/** Per input kind: approved, review, rejected, failed and anything else (a case left in the checks, say). */
export function liveOutcomesByKind(rows, kinds) {
  const byKind = Object.fromEntries(kinds.map((kind) => [kind, { approved: 0, review: 0, rejected: 0, failed: 0, other: 0 }]));
  for (const row of rows) byKind[row.kind][OUTCOME_OF_STATUS[row.status] ?? 'other'] += 1;
  return byKind;
}

/**
 * Every live case the harness submitted was taken up by the on-CPU checks and came to a decision
 * or to a person: never Failed, never stuck in the checks, never sent to review because no
 * provider was configured. `byModels` counts the cases the models scored (a case they could not
 * read goes to review without scores, with the reason).
 */
export function liveCasesSettled(rows, submitted) {
  const wrong = rows.filter((row) => !LIVE_SETTLED.has(row.status) || /not configured/i.test(row.decision_reason ?? '') || row.ocr_model === 'sandbox-simulator');
  const scored = rows.filter((row) => row.ocr_model !== null && row.liveness_model !== null);
  const ok = submitted.length > 0 && rows.length === submitted.length && wrong.length === 0;
  return result('every live case decided by the on-CPU checks or in review', ok, submitted.length, {
    byStatus: countBy(rows, (row) => row.status),
    scoredByTheModels: scored.length,
    models: [...new Set(scored.map((row) => `${row.ocr_model} / ${row.liveness_model}`))],
    reviewReasons: countBy(rows.filter((row) => row.status === 'PendingManualReview'), (row) => row.decision_reason),
    wrong: wrong.slice(0, 10),
  });
}

const liveness = (row) => ({ caseId: row.id, status: row.status, side: row.side, score: row.liveness_score, attack: row.attack_type, latencyMs: row.inference_latency_ms, reason: row.decision_reason });

/**
 * A real person (the real man, turning to the side his case asked for) is never rejected: approved,
 * or in review, which is allowed but reported with its reasons. Broken too when no real-person case
 * was scored by the liveness model, since then nothing was judged.
 */
export function realPersonNeverRejected(rows) {
  const real = rows.filter((row) => row.kind === 'real-person');
  const rejected = real.filter((row) => row.status === 'Rejected');
  const judged = real.filter((row) => LIVE_SETTLED.has(row.status) && row.liveness_model !== null);
  const review = real.filter((row) => row.status === 'PendingManualReview');
  return result('a real person never rejected (approved, or in review: reported)', rejected.length === 0 && judged.length > 0, real.length, {
    judgedByTheModels: judged.length,
    approved: real.filter((row) => row.status === 'Approved').length,
    review: review.length,
    reviewShare: real.length > 0 ? Number((review.length / real.length).toFixed(2)) : null,
    reviewReasons: countBy(review, (row) => row.decision_reason),
    rejected: rejected.map(liveness).slice(0, 10),
    cases: real.map(liveness).slice(0, 10),
  });
}

/** A replayed still photo is never approved (rejected as an attack, or in review); counted per outcome. */
export function replaysNeverApproved(rows) {
  const replays = rows.filter((row) => row.kind === 'replay');
  const approved = replays.filter((row) => row.status === 'Approved');
  return result('a replayed photo never approved', approved.length === 0, replays.length, {
    byStatus: countBy(replays, (row) => row.status),
    approved: approved.map(liveness).slice(0, 10),
  });
}
