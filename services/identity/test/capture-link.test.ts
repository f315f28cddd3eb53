import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIdentityConfig } from '../src/config.js';
import { CAPTURE, createCase, getCase, partnerWithToken, startedCase, uploadPassportEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';

type Created = { caseId: string; sessionToken: string; captureUrl: string; expiresAt: string };
type Detail = { returnUrl: string | null; consent: { givenAt: string; language: string; userAgent: string | null } | null };

describe('the hosted capture link: captureUrl, returnUrl, consent', () => {
  let test: TestApp;
  let acme: Partner;
  let globex: Partner;
  const clock = manualClock();

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', CAPTURE_BASE_URL: 'https://verify.example.com' }, { clock: clock.now });
    acme = await partnerWithToken(test, 'Acme Bank');
    globex = await partnerWithToken(test, 'Globex');
  });
  afterAll(() => test.close());

  const consent = (captureToken: string, payload: unknown, headers: Record<string, string> = {}) =>
    test.app.inject({ method: 'POST', url: `${CAPTURE}/consent`, headers: { authorization: `Bearer ${captureToken}`, ...headers }, payload: payload as object });

  it('answers 201 with the capture page link, the session token in its fragment', async () => {
    const response = await createCase(test, acme);
    expect(response.statusCode).toBe(201);
    const created = response.json<Created>();
    expect(created.captureUrl).toBe(`https://verify.example.com/capture?case=${created.caseId}#${created.sessionToken}`);
  });

  it("an idempotent replay's link carries the replay's new token, and only that one works", async () => {
    const first = (await createCase(test, acme, { documentType: 'SyrianPassport', returnUrl: 'https://acme.example/done' }, { 'idempotency-key': 'link-replay' })).json<Created>();
    const replay = await createCase(test, acme, { documentType: 'SyrianPassport', returnUrl: 'https://acme.example/done' }, { 'idempotency-key': 'link-replay' });
    expect(replay.statusCode).toBe(201);
    const second = replay.json<Created>();
    expect(second.caseId).toBe(first.caseId);
    expect(second.captureUrl).toBe(`https://verify.example.com/capture?case=${second.caseId}#${second.sessionToken}`);
    expect(second.sessionToken).not.toBe(first.sessionToken);
    const old = await test.app.inject({ method: 'GET', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${first.sessionToken}` } });
    expect(old.statusCode).toBe(401);
    // Another returnUrl is another body: a conflict, not a replay.
    const other = await createCase(test, acme, { documentType: 'SyrianPassport', returnUrl: 'https://acme.example/elsewhere' }, { 'idempotency-key': 'link-replay' });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: 'CASE_EXISTS' });
  });

  it('keeps the returnUrl on the case and shows it in the detail; null without one', async () => {
    const withUrl = (await createCase(test, acme, { documentType: 'SyrianNationalId', returnUrl: 'https://acme.example/kyc/done?step=3' })).json<Created>();
    expect((await getCase(test, acme, withUrl.caseId)).json<Detail>()).toMatchObject({ returnUrl: 'https://acme.example/kyc/done?step=3', consent: null });
    const without = (await createCase(test, acme)).json<Created>();
    expect((await getCase(test, acme, without.caseId)).json<Detail>().returnUrl).toBeNull();
  });

  it.each([
    ['http://acme.example/done', 'must be an https:// URL'],
    ['http://localhost:8080/done', 'http://localhost is allowed only in development'],
    ['https://user:secret@acme.example/done', 'must not carry credentials'],
    ['javascript:alert(1)', 'must be an https:// URL'],
    ['/relative/path', 'must be an absolute https:// URL'],
    [`https://acme.example/${'a'.repeat(480)}`, 'must be at most 500 characters'],
    [42, 'string'],
  ])('refuses the returnUrl %s with a 400 naming the field', async (returnUrl, message) => {
    const response = await createCase(test, acme, { documentType: 'SyrianPassport', returnUrl });
    expect(response.statusCode).toBe(400);
    const problem = response.json<{ code: string; errors: { path: string; message: string }[] }>();
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors[0]?.path).toContain('returnUrl');
    expect(problem.errors[0]?.message.toLowerCase()).toContain(String(message).toLowerCase());
  });

  it('previews a session without using it: who asks and what to capture', async () => {
    const created = (await createCase(test, acme, { documentType: 'SyrianNationalId' })).json<Created>();
    const preview = await test.app.inject({ method: 'GET', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${created.sessionToken}` } });
    expect(preview.statusCode).toBe(200);
    expect(preview.headers['cache-control']).toBe('no-store');
    expect(preview.json()).toEqual({ tenantName: 'Acme Bank', documentType: 'SyrianNationalId', requiredEvidence: ['DocumentFront', 'DocumentBack', 'Selfie', 'LivenessVideo'], expiresAt: created.expiresAt });
    expect((await getCase(test, acme, created.caseId)).json<{ status: string }>().status).toBe('SessionIssued');
    const exchanged = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${created.sessionToken}` } });
    expect(exchanged.statusCode).toBe(200);
    const used = await test.app.inject({ method: 'GET', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${created.sessionToken}` } });
    expect(used.statusCode).toBe(401);
    expect(used.json()).toMatchObject({ code: 'SESSION_ALREADY_USED' });
  });

  it("a cancelled case's session previews as 410 with the reason; a malformed token is 401", async () => {
    const cancelled = (await createCase(test, acme)).json<Created>();
    await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${cancelled.caseId}/cancel`, headers: acme.headers, payload: { reason: 'user left' } });
    const closed = await test.app.inject({ method: 'GET', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${cancelled.sessionToken}` } });
    expect(closed.statusCode).toBe(410);
    expect(closed.json()).toMatchObject({ code: 'CASE_CLOSED', currentStatus: 'Cancelled' });


    const malformed = await test.app.inject({ method: 'GET', url: `${CAPTURE}/session`, headers: { authorization: 'Bearer nope' } });
    expect(malformed.statusCode).toBe(401);
    expect(malformed.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('records consent (204): the detail shows when, in which language and from which browser', async () => {
    const started = await startedCase(test, acme);
    const before = await test.app.inject({ method: 'GET', url: `${CAPTURE}/status`, headers: started.capture });
    expect(before.json()).toMatchObject({ tenantName: 'Acme Bank', returnUrl: null, consentGiven: false });
    const response = await consent(started.captureToken, { language: 'ckb' }, { 'user-agent': 'Mozilla/5.0 (Linux; Android 14) Test' });
    expect(response.statusCode).toBe(204);
    const detail = (await getCase(test, acme, started.caseId)).json<Detail>();
    expect(detail.consent).toEqual({ givenAt: clock.now().toISOString(), language: 'ckb', userAgent: 'Mozilla/5.0 (Linux; Android 14) Test' });
    expect((await test.app.inject({ method: 'GET', url: `${CAPTURE}/status`, headers: started.capture })).json()).toMatchObject({ consentGiven: true });
    // Another tenant never sees the case, consent included.
    expect((await getCase(test, globex, started.caseId)).statusCode).toBe(404);
  });

  it.each([
    [{}, 'language'],
    [{ language: 'fr' }, 'language'],
    [{ language: 'ar', extra: true }, ''],
    [null, ''],
  ])('refuses the consent body %j with a 400', async (payload, path) => {
    const started = await startedCase(test, acme);
    const response = await test.app.inject({
      method: 'POST',
      url: `${CAPTURE}/consent`,
      headers: { authorization: `Bearer ${started.captureToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
    expect(response.statusCode).toBe(400);
    const problem = response.json<{ code: string; errors?: { path: string }[] }>();
    expect(problem.code).toBe('VALIDATION_ERROR');
    if (path) expect(problem.errors?.[0]?.path).toContain(path);
    expect((await getCase(test, acme, started.caseId)).json<Detail>().consent).toBeNull();
  });

  it('consent needs a capture token, and a case still capturing', async () => {
    expect((await consent('svc_ct_' + '0'.repeat(64), { language: 'ar' })).statusCode).toBe(401);
    const created = (await createCase(test, acme)).json<Created>();
    // The session token is not a capture token.
    expect((await consent(created.sessionToken, { language: 'ar' })).json()).toMatchObject({ code: 'UNAUTHENTICATED' });

    const started = await startedCase(test, acme);
    await uploadPassportEvidence(test, started.captureToken);
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture })).statusCode).toBe(200);
    const afterSubmit = await consent(started.captureToken, { language: 'en' });
    expect(afterSubmit.statusCode).toBe(409);
    expect(afterSubmit.json()).toMatchObject({ code: 'INVALID_CASE_STATE' });

    const cancelledCase = await startedCase(test, acme);
    await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${cancelledCase.caseId}/cancel`, headers: acme.headers, payload: { reason: 'stop' } });
    const closed = await consent(cancelledCase.captureToken, { language: 'en' });
    expect(closed.statusCode).toBe(410);
    expect(closed.json()).toMatchObject({ code: 'CASE_CLOSED' });
  });
});

describe('an expired link', () => {
  let test: TestApp;
  const clock = manualClock();
  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', SESSION_TTL_SECONDS: '60' }, { clock: clock.now });
  });
  afterAll(() => test.close());

  it('previews as 410 SESSION_EXPIRED, so the page can say what happened before the user starts', async () => {
    const acme = await partnerWithToken(test, 'Acme');
    const expiring = (await createCase(test, acme)).json<Created>();
    clock.advance(60_001);
    const expired = await test.app.inject({ method: 'GET', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${expiring.sessionToken}` } });
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toMatchObject({ code: 'SESSION_EXPIRED', expiresAt: expiring.expiresAt });
  });
});

describe('http://localhost return URLs in development', () => {
  let test: TestApp;
  let acme: Partner;
  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test.close());

  it('accepts http://localhost only with private targets allowed; other http hosts stay refused', async () => {
    expect((await createCase(test, acme, { documentType: 'SyrianPassport', returnUrl: 'http://localhost:5173/done' })).statusCode).toBe(201);
    expect((await createCase(test, acme, { documentType: 'SyrianPassport', returnUrl: 'http://127.0.0.1:5173/done' })).statusCode).toBe(201);
    expect((await createCase(test, acme, { documentType: 'SyrianPassport', returnUrl: 'http://acme.example/done' })).statusCode).toBe(400);
  });
});

describe('the origin of captureUrl', () => {
  const origin = (env: Record<string, string>) => loadIdentityConfig({ LOG_LEVEL: 'silent', ...env }).CAPTURE_ORIGIN;

  it('is CAPTURE_BASE_URL when set, else PUBLIC_BASE_URL when set or with a database, else where the embedded default listens', () => {
    expect(origin({ CAPTURE_BASE_URL: 'https://verify.example.com', PUBLIC_BASE_URL: 'https://api.example.com' })).toBe('https://verify.example.com');
    expect(origin({ CAPTURE_BASE_URL: 'https://verify.example.com/' })).toBe('https://verify.example.com');
    expect(origin({ PUBLIC_BASE_URL: 'https://api.example.com' })).toBe('https://api.example.com');
    expect(origin({ DATABASE_URL: 'postgres://x@127.0.0.1/x', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') })).toBe('https://localhost:8443');
    expect(origin({ PORT: '4100' })).toBe('http://127.0.0.1:4100');
    expect(origin({ HOST: '0.0.0.0', PORT: '4100' })).toBe('http://localhost:4100');
  });

  it('refuses a CAPTURE_BASE_URL with a path or credentials, naming the variable', () => {
    expect(() => origin({ CAPTURE_BASE_URL: 'https://verify.example.com/capture' })).toThrow(/CAPTURE_BASE_URL/);
    expect(() => origin({ CAPTURE_BASE_URL: 'https://a:b@verify.example.com' })).toThrow(/CAPTURE_BASE_URL/);
    expect(() => origin({ CAPTURE_BASE_URL: 'ftp://verify.example.com' })).toThrow(/CAPTURE_BASE_URL/);
  });
});
