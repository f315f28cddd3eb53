import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describeNeeding } from '@svc/db/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { caseClaims } from '../../src/db/schema.js';
import { createStaffUser } from '../../src/domain/accounts/staff.js';
import { partnerWithToken, submittedCase, type Partner } from '../case-helpers.js';
import { buildTestApp, PASSWORD, type TestApp } from '../helpers.js';

const INTERNAL = '/api/internal/v1';

/** Row locks only mean something with several connections: this runs on real PostgreSQL. */
describeNeeding('DATABASE_URL')('reviewers racing for one case (PostgreSQL)', () => {
  let test: TestApp;
  let sandbox: Partner;
  const reviewers: { email: string; authorization: string }[] = [];

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    sandbox = await partnerWithToken(test, 'Sandbox', undefined, { sandbox: true });
    for (let index = 0; index < 8; index += 1) {
      const email = `racer-${index}-${randomUUID()}@operator.example`;
      await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, new Date()));
      const login = await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, payload: { email, password: PASSWORD } });
      reviewers.push({ email, authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` });
    }
  });
  afterAll(() => test.close());

  it('eight reviewers claiming one case at once: one holds it, the seven others are told who', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { caseId } = await submittedCase(test, sandbox, `race-${round}#review`);
      await test.worker.runJobs();
      const responses = await Promise.all(reviewers.map((reviewer) => test.app.inject({ method: 'POST', url: `${INTERNAL}/cases/${caseId}/claim`, headers: { authorization: reviewer.authorization } })));
      const winners = responses.filter((response) => response.statusCode === 200);
      expect(winners, `round ${round}`).toHaveLength(1);
      const holder = winners[0]!.json<{ email: string }>().email;
      for (const response of responses.filter((candidate) => candidate !== winners[0])) {
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ code: 'CASE_CLAIMED', claimedBy: { email: holder } });
      }
      const rows = await test.db.select().from(caseClaims).where(eq(caseClaims.caseId, caseId));
      expect(rows).toHaveLength(1);
    }
  });

  it('two reviewers deciding one case at once: one decision, the other a 409', async () => {
    const { caseId } = await submittedCase(test, sandbox, 'race-decide#review');
    await test.worker.runJobs();
    const [first, second] = await Promise.all(
      reviewers.slice(0, 2).map((reviewer, index) =>
        test.app.inject({ method: 'POST', url: `${INTERNAL}/cases/${caseId}/review`, headers: { authorization: reviewer.authorization }, payload: { decision: index === 0 ? 'Approved' : 'Rejected', reasonCode: 'other', reason: 'race' } }),
      ),
    );
    expect([first!.statusCode, second!.statusCode].sort()).toEqual([200, 409]);
  });
});
