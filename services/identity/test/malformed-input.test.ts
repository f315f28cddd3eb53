import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE, partnerWithToken, startedCase, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, certificateHeader, type TestApp } from './helpers.js';

// Inputs the fuzz test (fuzz.test.ts) found answering a 5xx or stalling, pinned one by one.
let test: TestApp;
let partner: Partner;

beforeAll(async () => {
  test = await buildTestApp();
  partner = await partnerWithToken(test);
});
afterAll(async () => {
  await test.close();
});

describe('malformed input', () => {
  it('an upload whose multipart content type has no boundary is a 400, not a 500', async () => {
    const { capture } = await startedCase(test, partner);
    const response = await test.app.inject({ method: 'POST', url: `${CAPTURE}/evidence`, headers: { ...capture, 'content-type': 'multipart/form-data' }, payload: '--\r\n\r\n' });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'headers.content-type', message: 'must name a boundary' }] });
  });

  it('revoking a token that is not there answers at once (it used to wait a second for an announcement never sent)', async () => {
    for (const token of ['svc_at_unknown', `svc_at_${'A'.repeat(43)}`]) {
      const started = performance.now();
      const response = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/revoke`, headers: certificateHeader(partner.cert), payload: { token } });
      expect(response.statusCode, response.body).toBe(200);
      expect(performance.now() - started).toBeLessThan(500);
    }
    // A real revocation still takes effect at once.
    const revoked = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/revoke`, headers: certificateHeader(partner.cert), payload: { token: partner.token } });
    expect(revoked.statusCode).toBe(200);
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications`, headers: partner.headers })).statusCode).toBe(401);
  });

  it('a NUL character in a form parameter or a JSON string is a 400 naming the field (PostgreSQL text cannot hold it)', async () => {
    const token = await test.app.inject({
      method: 'POST',
      url: `${BASE}/oauth/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...certificateHeader(partner.cert) },
      payload: 'grant_type=client_credentials&client_id=%00',
    });
    expect(token.statusCode, token.body).toBe(400);
    expect(token.json()).toMatchObject({ errors: [{ path: 'body.client_id', message: 'must not contain the NUL character (U+0000)' }] });
    const fresh = await partnerWithToken(test, 'Nul tenant');
    const created = await test.app.inject({ method: 'POST', url: `${BASE}/verifications`, headers: fresh.headers, payload: { documentType: 'SyrianPassport', externalReference: 'ref\u0000' } });
    expect(created.statusCode, created.body).toBe(400);
    expect(created.json()).toMatchObject({ errors: [{ path: 'body.externalReference', message: 'must not contain the NUL character (U+0000)' }] });
  });

  it.each([
    ['page=0', 'page', 'must be at least 1'],
    ['page=1000001', 'page', 'must be at most 1000000'],
    ['page=1e21', 'page', 'must be at most 1000000'],
    ['page=NaN', 'page', 'must be an integer'],
    ['pageSize=101', 'pageSize', 'must be at most 100'],
    ['pageSize=Infinity', 'pageSize', 'must be an integer'],
  ])('the case list refuses %s with a 400 naming the range', async (query, field, message) => {
    const fresh = await partnerWithToken(test, `Tenant ${query}`);
    const response = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?${query}`, headers: fresh.headers });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json<{ errors: unknown[] }>().errors).toContainEqual({ path: `query.${field}`, message });
  });
});
