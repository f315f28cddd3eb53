import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, caseEvents, faceMatchResults, livenessResults, ocrResults, verificationCases } from '../src/db/schema.js';
import { eventTypeFor, nextStatus, TRANSITIONS, type CaseTrigger } from '../src/domain/cases/case-states.js';
import { lockCase, transitionCase } from '../src/domain/cases/case-transitions.js';
import { CAPTURE, createCase, getCase, partnerWithToken, startedCase, submittedCase, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';

describe('case lifecycle: the transition table, cancel, expiry and OCR corrections', () => {
  const clock = manualClock();
  let test: TestApp;
  let acme: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', SESSION_TTL_SECONDS: '600', CASE_TTL_SECONDS: '3600' }, { clock: clock.now });
  });
  afterAll(() => test.close());
  // The clock jumps past the access token's hour in the expiry tests: a fresh token for every test.
  beforeEach(async () => {
    acme = await partnerWithToken(test, 'Acme');
  });

  /** Moves a case as the checks and review would (their issues add the real triggers). */
  const move = (caseId: string, ...triggers: CaseTrigger[]) =>
    test.db.transaction(async (tx) => {
      for (const trigger of triggers) await transitionCase(tx, await lockCase(tx, caseId, null), { trigger, action: trigger, actor: { actor: 'test' }, now: clock.now() });
    });
  const cancel = (caseId: string, payload: unknown = { reason: 'customer asked' }) =>
    test.app.inject({ method: 'POST', url: `${BASE}/verifications/${caseId}/cancel`, headers: acme.headers, payload: payload as object });
  const statusOf = async (caseId: string) => (await getCase(test, acme, caseId)).json<{ status: string }>().status;
  const eventsOf = async (caseId: string) => (await test.db.select().from(caseEvents).where(eq(caseEvents.caseId, caseId)).orderBy(asc(caseEvents.occurredAt))).map((row) => row.eventType);

  it('names each state arrival event as the spec does', () => {
    expect(eventTypeFor('SessionIssued')).toBe('verification.session_issued');
    expect(eventTypeFor('AutomatedChecksRunning')).toBe('verification.automated_checks_running');
    expect(eventTypeFor('PendingManualReview')).toBe('verification.pending_manual_review');
    expect(nextStatus('Approved', 'cancel')).toBeNull();
    expect(TRANSITIONS.cancel.from).toEqual(['Requested', 'SessionIssued', 'CaptureStarted', 'PendingManualReview']);
  });

  it('cancels from SessionIssued, CaptureStarted and PendingManualReview: 204, Cancelled, completedAt, the reason audited, one event', async () => {
    const issued = (await createCase(test, acme)).json<{ caseId: string }>().caseId;
    const capturing = (await startedCase(test, acme)).caseId;
    const reviewing = (await submittedCase(test, acme)).caseId;
    await move(reviewing, 'start-checks', 'flag-for-review');
    for (const caseId of [issued, capturing, reviewing]) {
      const response = await cancel(caseId, { reason: `  stop ${caseId}  ` });
      expect(response.statusCode, caseId).toBe(204);
      const detail = (await getCase(test, acme, caseId)).json<{ status: string; completedAt: string | null }>();
      expect(detail.status).toBe('Cancelled');
      expect(detail.completedAt).not.toBeNull();
      const events = await eventsOf(caseId);
      expect(events.at(-1)).toBe('verification.cancelled');
      expect(events.filter((type) => type === 'verification.cancelled')).toHaveLength(1);
      const audit = await test.db.select().from(auditLog).where(eq(auditLog.target, `case:${caseId}`));
      expect(audit.find((row) => row.action === 'verification.cancel')).toMatchObject({ before: { status: expect.any(String) }, after: { status: 'Cancelled', reason: `stop ${caseId}` } });
    }
    expect(await eventsOf(reviewing)).toEqual([
      'verification.session_issued',
      'verification.capture_started',
      'verification.evidence_uploaded',
      'verification.automated_checks_running',
      'verification.pending_manual_review',
      'verification.cancelled',
    ]);
  });

  it('refuses to cancel a terminal case with 400 and a case being processed with 409, naming the state', async () => {
    const cancelled = (await createCase(test, acme)).json<{ caseId: string }>().caseId;
    await cancel(cancelled);
    const again = await cancel(cancelled);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'INVALID_CASE_STATE', currentStatus: 'Cancelled', detail: expect.stringContaining('Cancelled') });
    const approved = (await submittedCase(test, acme)).caseId;
    await move(approved, 'start-checks', 'approve');
    expect((await cancel(approved)).statusCode).toBe(400);
    const uploaded = (await submittedCase(test, acme)).caseId;
    const busy = await cancel(uploaded);
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ currentStatus: 'EvidenceUploaded' });
    expect(await statusOf(uploaded)).toBe('EvidenceUploaded');
  });

  it.each([
    ['no reason', {}],
    ['an empty reason', { reason: '   ' }],
    ['a 501-character reason', { reason: 'x'.repeat(501) }],
    ['a non-string reason', { reason: 42 }],
  ])('requires a reason of 1–500 characters: %s is 400', async (_name, payload) => {
    const caseId = (await createCase(test, acme)).json<{ caseId: string }>().caseId;
    const response = await cancel(caseId, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await statusOf(caseId)).toBe('SessionIssued');
  });

  it('expires cases whose session ran out before submission, with the event and a reason', async () => {
    const issued = (await createCase(test, acme)).json<{ caseId: string; sessionToken: string }>();
    const capturing = await startedCase(test, acme);
    const submitted = await submittedCase(test, acme);
    clock.advance(599_000);
    await test.worker.sweepExpired();
    expect(await statusOf(issued.caseId)).toBe('SessionIssued');
    clock.advance(2000);
    expect(await test.worker.sweepExpired()).toBeGreaterThanOrEqual(2);
    for (const caseId of [issued.caseId, capturing.caseId]) {
      const detail = (await getCase(test, acme, caseId)).json<{ status: string; decisionReason: string; completedAt: string }>();
      expect(detail).toMatchObject({ status: 'Expired', decisionReason: expect.stringContaining('session expired') });
      expect((await eventsOf(caseId)).at(-1)).toBe('verification.expired');
    }
    // Submitted before the session ran out: only CASE_TTL_SECONDS can expire it.
    expect(await statusOf(submitted.caseId)).toBe('EvidenceUploaded');
    const exchange = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${issued.sessionToken}` } });
    expect(exchange.statusCode).toBe(410);
    // A second sweep finds nothing new: one event per case.
    await test.worker.sweepExpired();
    expect((await eventsOf(issued.caseId)).filter((type) => type === 'verification.expired')).toHaveLength(1);
  });

  it('expires an open case stuck past CASE_TTL_SECONDS, in any open state, and leaves decided ones alone', async () => {
    const stuck = (await submittedCase(test, acme)).caseId;
    const reviewing = (await submittedCase(test, acme)).caseId;
    await move(reviewing, 'start-checks', 'flag-for-review');
    const decided = (await submittedCase(test, acme)).caseId;
    await move(decided, 'start-checks', 'reject');
    clock.advance(3_600_001);
    await test.worker.sweepExpired();
    // The clock moved past the access token's lifetime: read the rows directly.
    const row = async (caseId: string) => (await test.db.select().from(verificationCases).where(eq(verificationCases.id, caseId)))[0];
    expect(await row(stuck)).toMatchObject({ status: 'Expired', decisionReason: expect.stringContaining('not decided within 3600 seconds') });
    expect((await row(reviewing))?.status).toBe('Expired');
    expect((await row(decided))?.status).toBe('Rejected');
  });

  it('an expired session cannot be exchanged: 410 SESSION_EXPIRED before the sweep has run', async () => {
    const created = (await createCase(test, acme)).json<{ sessionToken: string }>();
    clock.advance(600_001);
    const response = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${created.sessionToken}` } });
    expect(response.statusCode).toBe(410);
    expect(response.json()).toMatchObject({ code: 'SESSION_EXPIRED' });
  });

  describe('OCR field corrections', () => {
    const seedOcr = (caseId: string) =>
      test.db.insert(ocrResults).values({
        caseId,
        tenantId: acme.tenantId,
        documentNumber: 'N0123456',
        modelName: 'test-ocr',
        modelVersion: '1.0',
        confidenceScore: 0.91,
        extractedFieldsJson: JSON.stringify({ surname: 'HADDAD', givenNames: 'SAMI', documentNumber: 'N0123456' }),
        mrzIsValid: null,
        mrzRawText: null,
        hasManipulationIndicators: false,
        inferenceTimestamp: clock.now(),
        inferenceLatencyMs: 120,
      });
    const patch = (caseId: string, payload: unknown) =>
      test.app.inject({ method: 'PATCH', url: `${BASE}/verifications/${caseId}/ocr-fields`, headers: acme.headers, payload: payload as object });

    it('is 404 while the case has no OCR result', async () => {
      const caseId = (await createCase(test, acme)).json<{ caseId: string }>().caseId;
      const response = await patch(caseId, { fields: { surname: 'X' } });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ detail: expect.stringContaining('no OCR result') });
    });

    it('corrects existing fields, keeps their order, returns the OCR result and audits before/after with the notes', async () => {
      const caseId = (await submittedCase(test, acme)).caseId;
      await move(caseId, 'start-checks', 'flag-for-review');
      await seedOcr(caseId);
      const response = await patch(caseId, { fields: { givenNames: 'SAMIR' }, notes: 'typo on the card scan' });
      expect(response.statusCode).toBe(200);
      const body = response.json<{ extractedFieldsJson: string; modelName: string; confidenceScore: number }>();
      expect(body).toMatchObject({ modelName: 'test-ocr', confidenceScore: 0.91 });
      expect(body.extractedFieldsJson).toBe('{"surname":"HADDAD","givenNames":"SAMIR","documentNumber":"N0123456"}');
      expect((await getCase(test, acme, caseId)).json<{ ocrResult: unknown }>().ocrResult).toEqual(body);
      const [audit] = await test.db.select().from(auditLog).where(eq(auditLog.action, 'verification.ocr_fields_corrected'));
      expect(audit).toMatchObject({
        tenantId: acme.tenantId,
        actor: `client:${acme.clientId}`,
        target: `case:${caseId}`,
        before: { fields: { givenNames: 'SAMI' } },
        after: { fields: { givenNames: 'SAMIR' }, notes: 'typo on the card scan' },
      });
    });

    it.each([
      ['an unknown field', { fields: { nationality: 'SYR' } }, 'nationality'],
      ['a non-string value', { fields: { surname: 5 } }, 'body.fields'],
      ['no fields', { fields: {} }, 'at least one'],
      ['no fields object', { notes: 'x' }, 'body.fields'],
      ['an unknown member', { fields: { surname: 'A' }, extra: true }, 'body'],
    ])('refuses %s with 400', async (_name, payload, mentioned) => {
      const caseId = (await startedCase(test, acme)).caseId;
      await seedOcr(caseId);
      const response = await patch(caseId, payload);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain(mentioned);
      const [row] = await test.db.select().from(ocrResults).where(eq(ocrResults.caseId, caseId));
      expect(JSON.parse(row!.extractedFieldsJson)).toMatchObject({ surname: 'HADDAD' });
    });

    it('shows face match and liveness results in the detail exactly as stored', async () => {
      const caseId = (await submittedCase(test, acme)).caseId;
      const at = new Date('2026-11-20T08:30:00.125Z');
      await test.db.insert(faceMatchResults).values({ caseId, modelName: 'face', modelVersion: '2', similarityScore: 0.83, threshold: 0.8, isMatch: true, inferenceTimestamp: at, inferenceLatencyMs: 41 });
      await test.db.insert(livenessResults).values({
        caseId,
        modelName: 'live',
        modelVersion: '3',
        livenessScore: 0.42,
        threshold: 0.8,
        isLive: false,
        presentationAttackDetected: true,
        attackType: 'replay',
        inferenceTimestamp: at,
        inferenceLatencyMs: 97,
      });
      const detail = (await getCase(test, acme, caseId)).json<Record<string, unknown>>();
      expect(detail.faceMatch).toEqual({ modelName: 'face', modelVersion: '2', similarityScore: 0.83, threshold: 0.8, isMatch: true, inferenceTimestamp: '2026-11-20T08:30:00.125Z', inferenceLatencyMs: 41 });
      expect(detail.liveness).toEqual({
        modelName: 'live',
        modelVersion: '3',
        livenessScore: 0.42,
        threshold: 0.8,
        isLive: false,
        presentationAttackDetected: true,
        attackType: 'replay',
        inferenceTimestamp: '2026-11-20T08:30:00.125Z',
        inferenceLatencyMs: 97,
      });
      expect(detail.ocrResult).toBeNull();
    });

    it('refuses corrections on a closed case with 400', async () => {
      const caseId = (await submittedCase(test, acme)).caseId;
      await seedOcr(caseId);
      await move(caseId, 'start-checks', 'approve');
      const response = await patch(caseId, { fields: { surname: 'X' } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'INVALID_CASE_STATE', currentStatus: 'Approved' });
      const [row] = await test.db.select().from(verificationCases).where(eq(verificationCases.id, caseId));
      expect(row!.status).toBe('Approved');
    });
  });
});
