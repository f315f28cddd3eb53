import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLintReadyOpenApi } from '@svc/service-kit/testing';
import { createStaffUser, STAFF_ROLES } from '../src/domain/accounts/staff.js';
import { REVIEW_REASON_CODES } from '../src/domain/review/review-case.js';
import { buildTestApp, createLoggedInTenant, PASSWORD, type TestApp } from './helpers.js';

const INTERNAL = '/api/internal/v1';
const DOCUMENT = `${INTERNAL}/openapi.json`;

type StaffDocument = Parameters<typeof expectLintReadyOpenApi>[0] & {
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  components: { schemas: Record<string, { enum?: string[] }>; securitySchemes: Record<string, unknown> };
};

// Every route of the internal API, so one added without documentation (or left out) fails here.
const INTERNAL_OPERATIONS = [
  'post /login',
  'post /password-reset',
  'post /password-reset/confirm',
  'post /login/second-factor',
  'post /login/passkey',
  'post /login/passkey/options',
  'post /login/second-factor/passkey-options',
  'post /logout',
  'get /session',
  'get /account/second-factors',
  'post /account/second-factors/totp',
  'post /account/second-factors/totp/confirm',
  'post /account/second-factors/passkeys/options',
  'post /account/second-factors/passkeys',
  'delete /account/second-factors/{factorId}',
  'post /account/recovery-codes',
  'patch /account/second-factors/passkeys/{factorId}',
  'post /account/reauthenticate',
  'post /account/reauthenticate/passkey-options',
  'put /account/language',
  'get /review-queue',
  'get /cases/{caseId}',
  'post /cases/{caseId}/claim',
  'delete /cases/{caseId}/claim',
  'post /cases/{caseId}/review',
  'get /review-history',
  'get /evidence/{evidenceId}/file',
  'get /evidence/{evidenceId}/frames',
];

describe('the staff OpenAPI document', () => {
  let test: TestApp;
  let staffAuthorization: string;

  beforeAll(async () => {
    test = await buildTestApp();
    const email = `reviewer-${randomUUID()}@operator.example`;
    await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, new Date()));
    const login = await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, payload: { email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    staffAuthorization = `Bearer ${login.json<{ sessionToken: string }>().sessionToken}`;
  });
  afterAll(() => test.close());

  it('is refused without a staff session', async () => {
    const response = await test.app.inject({ method: 'GET', url: DOCUMENT });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it("is refused to a partner's portal session, as a bearer token or as the portal's cookie", async () => {
    const partner = await createLoggedInTenant(test, 'Reads the partner docs');
    const asBearer = await test.app.inject({ method: 'GET', url: DOCUMENT, headers: partner.portal });
    const asCookie = await test.app.inject({ method: 'GET', url: DOCUMENT, headers: { cookie: `svc_portal_session=${partner.sessionToken}` } });
    for (const response of [asBearer, asCookie]) {
      expect(response.statusCode).toBe(401);
      expect(response.body).not.toContain('/review-queue');
    }
  });

  it('documents every internal route and nothing else, lint-ready, behind the staff session', async () => {
    const response = await test.app.inject({ method: 'GET', url: DOCUMENT, headers: { authorization: staffAuthorization } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const document = response.json<StaffDocument>();
    const operations = expectLintReadyOpenApi(document);
    expect(operations.map((operation) => `${operation.method} ${operation.path.slice(INTERNAL.length)}`).sort()).toEqual([...INTERNAL_OPERATIONS].sort());
    expect(Object.keys(document.paths).every((path) => path.startsWith(`${INTERNAL}/`))).toBe(true);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['consoleCookie', 'staffSession']);
    const staffSession = [{ staffSession: [] }, { consoleCookie: [] }];
    for (const operation of operations) {
      const name = `${operation.method} ${operation.path}`;
      // Signing in and forgetting the password need no session; everything after it needs the staff session.
      const signedOut = operation.path.startsWith(`${INTERNAL}/login`) || operation.path.startsWith(`${INTERNAL}/password-reset`);
      expect(operation.security, name).toEqual(signedOut ? [] : staffSession);
    }
  });

  it('names the bodies the console reads, and holds the role and reason lists the console offers', async () => {
    const document = (await test.app.inject({ method: 'GET', url: DOCUMENT, headers: { authorization: staffAuthorization } })).json<StaffDocument>();
    const schemas = document.components.schemas;
    for (const name of ['StaffSession', 'ReviewQueuePage', 'ReviewQueueItem', 'StaffCaseView', 'CaseClaim', 'MrzFieldComparison', 'ReviewOutcome', 'ReviewHistoryPage', 'ReviewHistoryItem', 'VerificationCase']) {
      expect(schemas, name).toHaveProperty(name);
    }
    expect(schemas.StaffRole?.enum).toEqual([...STAFF_ROLES]);
    expect(schemas.ReviewReasonCodeInput?.enum).toEqual([...REVIEW_REASON_CODES]);
    expect(schemas.ReviewVerdict?.enum).toEqual(['Approved', 'Rejected']);
  });
});
