// The identity side of the soak's load, as lanes that run until `running()` turns false:
//   - case lanes: sandbox cases created under an Idempotency-Key (every fifth key sent twice at
//     once, and any key resent after a connection error, as a partner's retry would), then
//     cancelled at once, or driven through capture (session, three uploads, submit) to the
//     simulator's decision (#approve, #reject, #review: an OCR field corrected, then cancelled from
//     review), some redacted;
//   - a token lane: a token issued, used, revoked, then used again on every instance: after the
//     revocation was acknowledged any success is a violation;
//   - an endpoint lane: a second webhook endpoint paused and resumed.
import { randomBytes } from 'node:crypto';
import { request, withRetries, evidenceUploads } from './traffic.mjs';

const PARTNER = '/api/partner/v1';
const CAPTURE = '/api/capture/v1';
const OUTCOMES = ['approve', 'approve', 'reject', 'review'];
const TERMINAL = new Set(['Approved', 'Rejected', 'Cancelled', 'Expired', 'Failed']);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function unexpected(recorder, what, answer) {
  if (answer.connectionError) return;
  recorder.unexpected.push({ at: Date.now(), what, status: answer.status, body: answer.body.slice(0, 300) });
}

/** Creates one case under `key` (twice at once when `twice`); returns {caseId, sessionToken} or null. Records every case id the key was answered with. */
export async function createCase(context, key, reference, twice) {
  const send = () =>
    withRetries(() =>
      request(context.recorder, {
        service: 'identity', route: 'POST /verifications', origin: context.origin, method: 'POST', path: `${PARTNER}/verifications`,
        headers: { ...context.auth(), 'idempotency-key': key }, json: { documentType: 'SyrianPassport', externalReference: reference },
      }),
    );
  const answers = await Promise.all(twice ? [send(), send()] : [send()]);
  // Each replay issues a fresh session token and retires the previous one; which of two concurrent
  // answers committed last is unknown, so one more replay gives the token that holds.
  if (twice) answers.push(await send());
  const ids = context.caseIdsByKey.get(key) ?? new Set();
  context.caseIdsByKey.set(key, ids);
  let created = null;
  for (const answer of answers) {
    if (answer.status === 201 || answer.status === 200) {
      ids.add(answer.json.caseId);
      created = answer.json;
    } else if (answer.status !== 409) unexpected(context.recorder, 'create case', answer);
  }
  return created;
}

/**
 * Polls the case until it is decided or waits for a person; null when `timeoutMs` passed, or the
 * run ended first and `boundedByRun`.
 */
export async function waitForDecision(context, caseId, { timeoutMs = 120_000, boundedByRun = true } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && (context.running() || !boundedByRun)) {
    const answer = await withRetries(() => request(context.recorder, { service: 'identity', route: 'GET /verifications/{id}', origin: context.origin, path: `${PARTNER}/verifications/${caseId}`, headers: context.auth() }));
    if (answer.status === 200 && (TERMINAL.has(answer.json.status) || answer.json.status === 'PendingManualReview')) return answer.json.status;
    await pause(500);
  }
  return null;
}

const post = (context, route, path, options = {}) => withRetries(() => request(context.recorder, { service: 'identity', route, origin: context.origin, method: 'POST', path, ...options }));

/** Records an answer the harness did not expect and gives `value` back for the caller to return. */
function refused(context, what, answer, value) {
  unexpected(context.recorder, what, answer);
  return value;
}

/**
 * The end user's first steps: the session exchanged and consent recorded when `consent`; returns
 * the capture headers, or null (recorded as unexpected) when either was refused.
 */
export async function openCapture(context, sessionToken, { consent = false } = {}) {
  const session = await post(context, 'POST /capture/session', `${CAPTURE}/session`, { headers: { authorization: `Bearer ${sessionToken}` } });
  if (session.status !== 200) return refused(context, 'session exchange', session, null);
  const capture = { authorization: `Bearer ${session.json.captureToken}` };
  if (consent) {
    const consented = await post(context, 'POST /capture/consent', `${CAPTURE}/consent`, { headers: capture, json: { language: 'en' } });
    if (consented.status !== 204) return refused(context, 'consent', consented, null);
  }
  return capture;
}

/** The case as the capture page reads it (its liveness challenge among the rest), or null. */
export async function captureStatus(context, capture) {
  const status = await withRetries(() => request(context.recorder, { service: 'identity', route: 'GET /capture/status', origin: context.origin, path: `${CAPTURE}/status`, headers: capture }));
  if (status.status !== 200) return refused(context, 'capture status', status, null);
  return status.json;
}

/**
 * Every upload sent, evidence submitted. True once submitted (a resent submit meeting the case
 * already submitted is a conflict, not a failure).
 */
export async function submitEvidence(context, capture, uploads) {
  for (const upload of uploads) {
    const uploaded = await post(context, 'POST /capture/evidence', `${CAPTURE}/evidence`, { headers: capture, body: upload.body, contentType: upload.contentType });
    if (uploaded.status !== 201) return refused(context, `upload ${upload.evidenceType}`, uploaded, false);
  }
  const submitted = await post(context, 'POST /capture/submit', `${CAPTURE}/submit`, { headers: capture });
  if (submitted.status !== 200 && submitted.status !== 409) return refused(context, 'submit', submitted, false);
  return true;
}

/** The end user's whole part: `openCapture`, then `submitEvidence`. */
export async function captureEvidence(context, sessionToken, uploads, options = {}) {
  const capture = await openCapture(context, sessionToken, options);
  return capture !== null && (await submitEvidence(context, capture, uploads));
}

/**
 * The partner corrects one field the OCR extracted (the surname when there is one) to a value
 * unique to this correction; each one answered 200 is pushed to `context.corrections.made`, to be
 * found on the case detail and in its history at the end. A case without OCR fields is counted apart.
 */
export async function correctOcrField(context, caseId) {
  const detail = await withRetries(() => request(context.recorder, { service: 'identity', route: 'GET /verifications/{id}', origin: context.origin, path: `${PARTNER}/verifications/${caseId}`, headers: context.auth() }));
  if (detail.status !== 200) return unexpected(context.recorder, 'read before correction', detail);
  const fields = detail.json.ocrResult ? JSON.parse(detail.json.ocrResult.extractedFieldsJson) : {};
  const field = Object.hasOwn(fields, 'surname') ? 'surname' : Object.keys(fields)[0];
  if (field === undefined) {
    context.corrections.withoutFields += 1;
    return;
  }
  const value = `SOAK ${randomBytes(4).toString('hex').toUpperCase()}`;
  const corrected = await withRetries(() =>
    request(context.recorder, {
      service: 'identity', route: 'PATCH /verifications/{id}/ocr-fields', origin: context.origin, method: 'PATCH', path: `${PARTNER}/verifications/${caseId}/ocr-fields`,
      headers: context.auth(), json: { fields: { [field]: value }, notes: 'soak: the partner read the document again' },
    }),
  );
  if (corrected.status !== 200) return unexpected(context.recorder, 'OCR correction', corrected);
  if (JSON.parse(corrected.json.extractedFieldsJson)[field] !== value) return unexpected(context.recorder, 'OCR correction answered without the value', corrected);
  context.corrections.made.push({ caseId, auth: context.auth, field, value, before: fields[field] });
}

async function driveCase(context, lane, index) {
  const outcome = OUTCOMES[index % OUTCOMES.length];
  const key = `soak-${lane}-${index}`;
  const created = await createCase(context, key, `soak ${lane}/${index} #${outcome}`, index % 5 === 0);
  if (!created) return;
  const caseId = created.caseId;
  if (index % 6 === 3) {
    const cancelled = await post(context, 'POST /verifications/{id}/cancel', `${PARTNER}/verifications/${caseId}/cancel`, { headers: context.auth(), json: { reason: 'soak: partner cancelled' } });
    if (cancelled.status !== 204) unexpected(context.recorder, 'cancel', cancelled);
    return;
  }
  if (!(await captureEvidence(context, created.sessionToken, evidenceUploads()))) return;
  const decided = await waitForDecision(context, caseId);
  if (decided === 'PendingManualReview') {
    // Corrections are allowed until the case is closed: in review is the sandbox's one open state with OCR fields.
    await correctOcrField(context, caseId);
    const cancelled = await post(context, 'POST /verifications/{id}/cancel', `${PARTNER}/verifications/${caseId}/cancel`, { headers: context.auth(), json: { reason: 'soak: withdrawn from review' } });
    if (cancelled.status !== 204) unexpected(context.recorder, 'cancel from review', cancelled);
  } else if (decided === 'Approved' && index % 3 === 0) {
    const redacted = await post(context, 'POST /verifications/{id}/redact', `${PARTNER}/verifications/${caseId}/redact`, { headers: context.auth() });
    if (redacted.status !== 202) unexpected(context.recorder, 'redact', redacted);
  }
}

export async function caseLane(context, lane) {
  for (let index = 0; context.running(); index += 1) await driveCase(context, lane, index);
}

export async function tokenLane(context) {
  const { recorder, origin, thumbprint, clientId } = context;
  const form = (fields) => new URLSearchParams(fields).toString();
  while (context.running()) {
    const issued = await withRetries(() =>
      request(recorder, { service: 'identity', route: 'POST /oauth/token', origin, method: 'POST', path: `${PARTNER}/oauth/token`, headers: { 'x-client-cert-thumbprint': thumbprint }, form: form({ grant_type: 'client_credentials', client_id: clientId }) }),
    );
    if (issued.status !== 200) {
      unexpected(recorder, 'token issue', issued);
      await pause(1000);
      continue;
    }
    const token = issued.json.access_token;
    const use = () => request(recorder, { service: 'identity', route: 'GET /verifications', origin, path: `${PARTNER}/verifications?pageSize=1`, headers: { authorization: `Bearer ${token}`, 'x-client-cert-thumbprint': thumbprint } });
    const before = await use();
    if (before.status !== 200 && !before.connectionError) unexpected(recorder, 'token use', before);
    const revoked = await withRetries(() =>
      request(recorder, { service: 'identity', route: 'POST /oauth/revoke', origin, method: 'POST', path: `${PARTNER}/oauth/revoke`, headers: { 'x-client-cert-thumbprint': thumbprint }, form: form({ token }) }),
    );
    if (revoked.status !== 200) {
      unexpected(recorder, 'token revoke', revoked);
      continue;
    }
    const acknowledgedAt = Date.now();
    context.tokenChecks.revoked += 1;
    // Every instance, through the round-robin front: revocation must hold on all of them at once.
    for (let check = 0; check < 4; check += 1) {
      const after = await use();
      context.tokenChecks.usesAfterRevocation += 1;
      if (after.status >= 200 && after.status < 300) recorder.violations.revokedTokenAccepted.push({ acknowledgedAt, usedAt: Date.now() });
    }
    await pause(1000);
  }
}

export async function endpointLane(context, endpointId) {
  for (let active = false; context.running(); active = !active) {
    await pause(5000);
    const action = active ? 'activate' : 'deactivate';
    const answer = await withRetries(() =>
      request(context.recorder, { service: 'identity', route: `POST /webhooks/{id}/${action}`, origin: context.origin, method: 'POST', path: `${PARTNER}/webhooks/${endpointId}/${action}`, headers: context.auth() }),
    );
    if (answer.status !== 204) unexpected(context.recorder, `endpoint ${action}`, answer);
  }
}
