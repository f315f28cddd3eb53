import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { caseEvents, caseSessions, jobs, verificationCases } from '../src/db/schema.js';
import { hashToken } from '@svc/accounts';
import { CAPTURE, createCase, partnerWithToken, startedCase, uploadPassportEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';
import { describeNeeding } from '@svc/db/testing';

/** Locking only means something with several connections: these run on real PostgreSQL. */
describeNeeding('DATABASE_URL')('verification cases under concurrency (PostgreSQL)', () => {
  const clock = manualClock();
  let test: TestApp;
  let acme: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', SESSION_TTL_SECONDS: '600' }, { clock: clock.now });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test.close());

  it('50 concurrent identical creations with one Idempotency-Key make exactly one case; the last token issued is the one that works', async () => {
    const headers = { 'idempotency-key': 'burst-1' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => createCase(test, acme, { documentType: 'SyrianPassport', externalReference: 'burst' }, headers)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(50).fill(201));
    const bodies = responses.map((response) => response.json<{ caseId: string; sessionToken: string }>());
    expect(new Set(bodies.map((body) => body.caseId)).size).toBe(1);
    const cases = await test.db.select().from(verificationCases).where(and(eq(verificationCases.tenantId, acme.tenantId), eq(verificationCases.idempotencyKey, 'burst-1')));
    expect(cases).toHaveLength(1);
    expect(await test.db.select().from(caseEvents).where(eq(caseEvents.caseId, cases[0]!.id))).toHaveLength(1);
    const [session] = await test.db.select().from(caseSessions).where(eq(caseSessions.caseId, cases[0]!.id));
    expect(bodies.filter((body) => hashToken(body.sessionToken) === session!.sessionTokenHash)).toHaveLength(1);
  });

  it('a cancel racing the submit ends in exactly one state, with the events and job of that state only', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 12; round += 1) {
      const started = await startedCase(test, acme);
      await uploadPassportEvidence(test, started.captureToken);
      const [cancel, submit] = await Promise.all([
        test.app.inject({ method: 'POST', url: `${BASE}/verifications/${started.caseId}/cancel`, headers: acme.headers, payload: { reason: 'race' } }),
        test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture }),
      ]);
      const [row] = await test.db.select().from(verificationCases).where(eq(verificationCases.id, started.caseId));
      const events = (await test.db.select().from(caseEvents).where(eq(caseEvents.caseId, started.caseId))).map((event) => event.eventType);
      const queued = await test.db.select().from(jobs).where(eq(jobs.subjectId, started.caseId));
      if (row!.status === 'Cancelled') {
        expect([cancel.statusCode, submit.statusCode]).toEqual([204, 410]);
        expect(events).not.toContain('verification.evidence_uploaded');
        expect(queued).toHaveLength(0);
      } else {
        expect(row!.status).toBe('EvidenceUploaded');
        expect([cancel.statusCode, submit.statusCode]).toEqual([409, 200]);
        expect(events).not.toContain('verification.cancelled');
        expect(queued).toHaveLength(1);
      }
      outcomes.push(row!.status);
    }
    expect(outcomes).toHaveLength(12);
  });

  it('two sweeps at once expire each case exactly once', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 30; index += 1) ids.push((await createCase(test, acme)).json<{ caseId: string }>().caseId);
    clock.advance(601_000);
    const [first, second] = await Promise.all([test.worker.sweepExpired(), test.worker.sweepExpired()]);
    expect(first + second).toBeGreaterThanOrEqual(30);
    const rows = await test.db.select().from(verificationCases).where(inArray(verificationCases.id, ids));
    expect(rows.every((row) => row.status === 'Expired')).toBe(true);
    const expiredEvents = await test.db
      .select()
      .from(caseEvents)
      .where(and(inArray(caseEvents.caseId, ids), eq(caseEvents.eventType, 'verification.expired')));
    expect(expiredEvents).toHaveLength(30);
  });
});
