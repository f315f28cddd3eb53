import { randomUUID } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, tenants, verificationCases } from '../src/db/schema.js';
import { updateTenantSettings } from '../src/domain/tenants/tenants.js';
import { getCase, partnerWithToken, startedCase, submittedCase, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';

const DAY = 86_400_000;

/** The retention sweep on a clock moved by hand: nothing waits for real days. */
describe('retention by policy', () => {
  const clock = manualClock();
  let test: TestApp;
  let sandbox: Partner;
  let other: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', UNDECIDED_RETENTION_DAYS: '7', AUDIT_RETENTION_DAYS: '400', RETENTION_SWEEP_BATCH: '2' }, { clock: clock.now });
    sandbox = await partnerWithToken(test, 'Sandbox', undefined, { sandbox: true });
    other = await partnerWithToken(test, 'Other', undefined, { sandbox: true });
  });
  afterAll(() => test.close());

  async function approvedCase(partner: Partner) {
    const { caseId } = await submittedCase(test, partner, `r-${randomUUID()}#approve`);
    await test.worker.runJobs();
    expect((await getCase(test, partner, caseId)).json()).toMatchObject({ status: 'Approved' });
    return caseId;
  }
  // Read from the table: the partners' tokens expire as the clock moves on (the API's redactedAt is covered in redaction.test.ts).
  const redactedAt = async (_partner: Partner, caseId: string) => {
    const [row] = await test.db.select({ redactedAt: verificationCases.redactedAt }).from(verificationCases).where(eq(verificationCases.id, caseId));
    return row!.redactedAt?.toISOString() ?? null;
  };
  const health = async () => (await test.app.inject({ method: 'GET', url: '/health' })).json<{ checks: { retention: { due: number; redacting: number } } }>().checks.retention;

  it('takes at most RETENTION_SWEEP_BATCH cases per sweep', async () => {
    const cases = [];
    for (let index = 0; index < 3; index += 1) {
      const started = await startedCase(test, sandbox);
      await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${started.caseId}/cancel`, headers: sandbox.headers, payload: { reason: 'gone' } });
      cases.push(started.caseId);
    }
    clock.advance(8 * DAY);
    expect(await test.worker.sweepRetention()).toMatchObject({ requested: 2 });
    expect(await test.worker.sweepRetention()).toMatchObject({ requested: 1 });
    expect(await test.worker.sweepRetention()).toMatchObject({ requested: 0 });
    await test.worker.runJobs();
    for (const caseId of cases) expect(await redactedAt(sandbox, caseId)).not.toBeNull();
  });

  it('redacts decided cases after their tenant’s evidenceRetentionDays and undecided ones after UNDECIDED_RETENTION_DAYS, reporting the backlog', async () => {
    // Fresh tokens: the clock has moved past the first ones' lifetime.
    sandbox = await partnerWithToken(test, 'Sandbox', undefined, { sandbox: true });
    other = await partnerWithToken(test, 'Other', undefined, { sandbox: true });
    await test.db.transaction((tx) => updateTenantSettings(tx, other.tenantId, { evidenceRetentionDays: '30' }, clock.now()));
    const decided = await approvedCase(sandbox);
    const decidedOther = await approvedCase(other);
    const open = await startedCase(test, sandbox);
    const cancelled = await startedCase(test, sandbox);
    expect((await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${cancelled.caseId}/cancel`, headers: sandbox.headers, payload: { reason: 'gone' } })).statusCode).toBe(204);

    clock.advance(7 * DAY - 1000);
    expect(await test.worker.sweepRetention()).toMatchObject({ requested: 0 });
    expect(await health()).toEqual({ due: 0, redacting: 0 });

    clock.advance(2000);
    expect(await health()).toEqual({ due: 1, redacting: 0 });
    expect(await test.worker.sweepRetention()).toMatchObject({ requested: 1 });
    expect(await health()).toEqual({ due: 0, redacting: 1 });
    await test.worker.runJobs();
    expect(await redactedAt(sandbox, cancelled.caseId)).toBe(clock.now().toISOString());
    expect(await health()).toEqual({ due: 0, redacting: 0 });

    // Day 30 + : the other tenant's approved case (30 days); the default tenant's (90) waits.
    clock.advance(23 * DAY);
    expect(await test.worker.sweepRetention()).toMatchObject({ requested: 1 });
    await test.worker.runJobs();
    expect(await redactedAt(other, decidedOther)).not.toBeNull();
    expect(await redactedAt(sandbox, decided)).toBeNull();

    clock.advance(60 * DAY);
    expect(await test.worker.sweepRetention()).toMatchObject({ requested: 1 });
    await test.worker.runJobs();
    expect(await redactedAt(sandbox, decided)).not.toBeNull();
    // An open case is never due, however old (the expiry sweep closes it first).
    expect(await redactedAt(sandbox, open.caseId)).toBeNull();
  });

  it('deletes audit entries older than AUDIT_RETENTION_DAYS and keeps newer ones', async () => {
    // The cutoff just before the newest entry: every older one is past retention.
    const [newest] = await test.db.select({ at: auditLog.at }).from(auditLog).orderBy(desc(auditLog.at)).limit(1);
    clock.advance(400 * DAY - (clock.now().getTime() - newest!.at.getTime()) - 1);
    const cutoff = clock.now().getTime() - 400 * DAY;
    const before = await test.db.select({ at: auditLog.at }).from(auditLog);
    const expired = before.filter((entry) => entry.at.getTime() < cutoff).length;
    expect(expired).toBeGreaterThan(0);
    expect(expired).toBeLessThan(before.length);
    // At most 10 × RETENTION_SWEEP_BATCH entries per sweep: a long backlog is worked off over several.
    const deleted: number[] = [];
    for (let swept = -1; swept !== 0; ) {
      swept = (await test.worker.sweepRetention()).auditEntriesDeleted;
      deleted.push(swept);
    }
    expect(deleted[0]).toBe(20);
    expect(deleted.reduce((sum, count) => sum + count, 0)).toBe(expired);
    const after = await test.db.select({ at: auditLog.at }).from(auditLog);
    expect(after.every((entry) => entry.at.getTime() >= cutoff)).toBe(true);
  });

  it('refuses a retention outside 1–3650 days and an unknown tenant, changing nothing', async () => {
    for (const bad of ['0', '3651', '1.5', 'ninety']) {
      await expect(test.db.transaction((tx) => updateTenantSettings(tx, sandbox.tenantId, { evidenceRetentionDays: bad }, clock.now()))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    await expect(test.db.transaction((tx) => updateTenantSettings(tx, randomUUID(), { evidenceRetentionDays: '10' }, clock.now()))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const [row] = await test.db.select({ days: tenants.evidenceRetentionDays }).from(tenants).where(eq(tenants.id, sandbox.tenantId));
    expect(row!.days).toBe(90);
  });
});
