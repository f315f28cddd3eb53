// The identity side of the soak's load, as lanes that run until `running()` turns false:
//   - case lanes: sandbox cases created under an Idempotency-Key (every fifth key sent twice at
//     once, and any key resent after a connection error, as a partner's retry would), then
//     cancelled at once, or driven through capture (session, three uploads, submit) to the
//     simulator's decision (#approve, #reject, #review: cancelled from review), some redacted;
//   - a token lane: a token issued, used, revoked, then used again on every instance: after the
//     revocation was acknowledged any success is a violation;
//   - an endpoint lane: a second webhook endpoint paused and resumed.
import { request, withRetries, evidenceUploads } from './traffic.mjs';

const PARTNER = '/api/partner/v1';
const CAPTURE = '/api/capture/v1';
const OUTCOMES = ['approve', 'approve', 'reject', 'review'];
const TERMINAL = new Set(['Approved', 'Rejected', 'Cancelled', 'Expired', 'Failed']);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function unexpected(recorder, what, answer) {
  if (answer.connectionError) return;
  recorder.unexpected.push({ at: Date.now(), what, status: answer.status, body: answer.body.slice(0, 300) });
}

/** Creates one case under `key` (twice at once when `twice`); returns {caseId, sessionToken} or null. Records every case id the key was answered with. */
async function createCase(context, key, reference, twice) {
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

async function waitForDecision(context, caseId) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && context.running()) {
    const answer = await request(context.recorder, { service: 'identity', route: 'GET /verifications/{id}', origin: context.origin, path: `${PARTNER}/verifications/${caseId}`, headers: context.auth() });
    if (answer.status === 200 && (TERMINAL.has(answer.json.status) || answer.json.status === 'PendingManualReview')) return answer.json.status;
    await pause(500);
  }
  return null;
}

async function driveCase(context, lane, index) {
  const outcome = OUTCOMES[index % OUTCOMES.length];
  const key = `soak-${lane}-${index}`;
  const created = await createCase(context, key, `soak ${lane}/${index} #${outcome}`, index % 5 === 0);
  if (!created) return;
  const caseId = created.caseId;
  const post = (route, path, options = {}) => withRetries(() => request(context.recorder, { service: 'identity', route, origin: context.origin, method: 'POST', path, ...options }));
  if (index % 6 === 3) {
    const cancelled = await post('POST /verifications/{id}/cancel', `${PARTNER}/verifications/${caseId}/cancel`, { headers: context.auth(), json: { reason: 'soak: partner cancelled' } });
    if (cancelled.status !== 204) unexpected(context.recorder, 'cancel', cancelled);
    return;
  }
  const session = await post('POST /capture/session', `${CAPTURE}/session`, { headers: { authorization: `Bearer ${created.sessionToken}` } });
  if (session.status !== 200) return unexpected(context.recorder, 'session exchange', session);
  const capture = { authorization: `Bearer ${session.json.captureToken}` };
  for (const upload of evidenceUploads()) {
    const uploaded = await post('POST /capture/evidence', `${CAPTURE}/evidence`, { headers: capture, body: upload.body, contentType: upload.contentType });
    if (uploaded.status !== 201) return unexpected(context.recorder, `upload ${upload.evidenceType}`, uploaded);
  }
  const submitted = await post('POST /capture/submit', `${CAPTURE}/submit`, { headers: capture });
  // A submit resent after a lost answer meets the case already submitted: a conflict, not a failure.
  if (submitted.status !== 200 && submitted.status !== 409) return unexpected(context.recorder, 'submit', submitted);
  const decided = await waitForDecision(context, caseId);
  if (decided === 'PendingManualReview') {
    const cancelled = await post('POST /verifications/{id}/cancel', `${PARTNER}/verifications/${caseId}/cancel`, { headers: context.auth(), json: { reason: 'soak: withdrawn from review' } });
    if (cancelled.status !== 204) unexpected(context.recorder, 'cancel from review', cancelled);
  } else if (decided === 'Approved' && index % 3 === 0) {
    const redacted = await post('POST /verifications/{id}/redact', `${PARTNER}/verifications/${caseId}/redact`, { headers: context.auth() });
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
