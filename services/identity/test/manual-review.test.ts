import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { getCase, partnerWithToken, submittedCase, type Partner } from './case-helpers.js';
import { buildTestApp, PASSWORD, type TestApp } from './helpers.js';

const INTERNAL = '/api/internal/v1';

describe('manual review (internal API)', () => {
  let test: TestApp;
  let sandbox: Partner;
  let staff: { authorization: string };
  let reviewerId: string;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    sandbox = await partnerWithToken(test, 'Sandbox', undefined, { sandbox: true });
    const email = `reviewer-${randomUUID()}@operator.example`;
    reviewerId = (await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, new Date()))).staffId;
    const login = await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, payload: { email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    staff = { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` };
  });
  afterAll(() => test.close());

  async function caseInReview(reference = 'needs-a-look#review') {
    const { caseId } = await submittedCase(test, sandbox, reference);
    await test.worker.runJobs();
    return caseId;
  }
  const review = (caseId: string, payload: object, headers = staff) => test.app.inject({ method: 'POST', url: `${INTERNAL}/cases/${caseId}/review`, headers, payload });

  it('lists cases waiting for review, oldest first, across tenants', async () => {
    const first = await caseInReview();
    const second = await caseInReview();
    const queue = await test.app.inject({ method: 'GET', url: `${INTERNAL}/review-queue?pageSize=100`, headers: staff });
    expect(queue.statusCode).toBe(200);
    const ids = queue.json<{ items: { id: string; status: string; sandbox: boolean }[] }>().items.map((item) => item.id);
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
    expect(queue.json()).toMatchObject({ items: expect.arrayContaining([expect.objectContaining({ id: first, status: 'PendingManualReview', sandbox: true, tenantId: sandbox.tenantId })]) });
  });

  it('approves and rejects with the decision recorded in the case and its event', async () => {
    const approved = await caseInReview();
    const response = await review(approved, { decision: 'Approved', reason: 'Face matches on a second look; lighting was poor.' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ caseId: approved, status: 'Approved' });
    const detail = (await getCase(test, sandbox, approved)).json<{ status: string; decisionReason: string; reviewDecisions: unknown[] }>();
    expect(detail).toMatchObject({ status: 'Approved', decisionReason: 'Manual review: Face matches on a second look; lighting was poor.' });
    expect(detail.reviewDecisions).toEqual([
      { id: expect.any(String), reviewerId, decision: 'Approved', reason: 'Face matches on a second look; lighting was poor.', decidedAt: expect.any(String) },
    ]);
    const rejected = await caseInReview();
    expect((await review(rejected, { decision: 'Rejected', reason: 'Different person.' })).json()).toEqual({ caseId: rejected, status: 'Rejected' });
  });

  it('refuses a case that is not waiting for review with 409, and bad input with 400 or 404', async () => {
    const decided = await caseInReview();
    await review(decided, { decision: 'Approved', reason: 'ok' });
    const again = await review(decided, { decision: 'Rejected', reason: 'changed my mind' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'INVALID_CASE_STATE', currentStatus: 'Approved' });
    const approvedBySimulator = await caseInReview('plain#approve');
    expect((await review(approvedBySimulator, { decision: 'Rejected', reason: 'x' })).statusCode).toBe(409);
    expect((await review('00000000-0000-4000-8000-000000000000', { decision: 'Approved', reason: 'x' })).statusCode).toBe(404);
    expect((await review('nope', { decision: 'Approved', reason: 'x' })).statusCode).toBe(400);
    const waiting = await caseInReview();
    for (const payload of [{ decision: 'Maybe', reason: 'x' }, { decision: 'Approved' }, { decision: 'Approved', reason: ' ' }, { decision: 'Approved', reason: 'x', extra: 1 }]) {
      expect((await review(waiting, payload)).statusCode, JSON.stringify(payload)).toBe(400);
    }
  });

  it('lets no partner credential in, and stays out of the partner OpenAPI document', async () => {
    const caseId = await caseInReview();
    for (const headers of [{ authorization: sandbox.headers.authorization }, sandbox.portal, { authorization: 'Bearer svc_ss_forged' }, {}]) {
      expect((await review(caseId, { decision: 'Approved', reason: 'x' }, headers as { authorization: string })).statusCode).toBe(401);
      expect((await test.app.inject({ method: 'GET', url: `${INTERNAL}/review-queue`, headers })).statusCode).toBe(401);
    }
    const document = (await test.app.inject({ method: 'GET', url: '/docs/json' })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(document.paths).filter((path) => path.startsWith(INTERNAL))).toEqual([]);
  });

  it('answers a wrong password with 401 and locks the address after five failures', async () => {
    const email = `locked-${randomUUID()}@operator.example`;
    await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, new Date()));
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expect((await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, payload: { email, password: 'wrong password!!' } })).statusCode).toBe(401);
    }
    const locked = await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, payload: { email, password: PASSWORD } });
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
  });
});
