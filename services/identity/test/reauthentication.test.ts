import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, portalUsers } from '../src/db/schema.js';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { makeCertificate } from './certificates.js';
import { partnerWithToken } from './case-helpers.js';
import { BASE, buildTestApp, createLoggedInTenant, manualClock, PASSWORD, type LoggedInTenant, type TestApp } from './helpers.js';
import { SoftwareAuthenticator } from './passkey-authenticator.js';
import { authenticatorCode } from './second-factor-helpers.js';

type Headers = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const ORIGIN = 'https://portal.example.test';
const RP_ID = 'portal.example.test';
const INTERNAL = '/api/internal/v1';
const PUBLIC_HOOK = 'https://93.184.215.14/hooks';
const STALE_MS = 5 * 60_000 + 1000;

describe('fresh authentication before sensitive changes', () => {
  let test: TestApp;
  const clock = manualClock();

  beforeAll(async () => {
    test = await buildTestApp({ WEBAUTHN_ORIGINS: ORIGIN }, { clock: clock.now });
  });
  afterAll(() => test.close());

  const call = (headers: Headers, method: Method, path: string, payload?: object, base = BASE) =>
    test.app.inject({ method, url: `${base}${path}`, headers, ...(payload ? { payload } : {}) });
  const reauthenticate = (headers: Headers, proof: object, base = BASE, prefix = '/portal') => call(headers, 'POST', `${prefix}/account/reauthenticate`, proof, base);
  const auditOf = async (actor: string) => (await test.db.select({ action: auditLog.action, after: auditLog.after }).from(auditLog).where(eq(auditLog.actor, actor))).map((row) => row.action);

  async function withTotp(headers: Headers, prefix = '/portal', base = BASE) {
    const { secret } = (await call(headers, 'POST', `${prefix}/account/second-factors/totp`, undefined, base)).json<{ secret: string }>();
    const confirmed = await call(headers, 'POST', `${prefix}/account/second-factors/totp/confirm`, { code: authenticatorCode(secret, clock.now()) }, base);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const listed = (await call(headers, 'GET', `${prefix}/account/second-factors`, undefined, base)).json<{ items: { id: string }[] }>();
    return { secret, factorId: listed.items[0]!.id };
  }

  /** Every sensitive portal action, with a body that succeeds once the session is fresh. */
  async function sensitiveActions(tenant: LoggedInTenant, factorId: string) {
    const certificate = await makeCertificate();
    const hook = await call(tenant.portal, 'POST', '/webhooks', { url: PUBLIC_HOOK, eventTypes: ['verification.approved'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const hookId = hook.json<{ endpoint: { id: string } }>().endpoint.id;
    const spare = (await call(tenant.portal, 'POST', '/webhooks', { url: PUBLIC_HOOK, eventTypes: ['verification.rejected'] })).json<{ endpoint: { id: string } }>().endpoint.id;
    return [
      { method: 'POST', path: '/portal/account/recovery-codes', expected: 200 },
      { method: 'POST', path: '/portal/account/password', payload: { currentPassword: PASSWORD, newPassword: `${PASSWORD} two` }, expected: 200 },
      { method: 'POST', path: '/oauth/clients', payload: { clientName: 'Backend', certificatePem: certificate.certPem }, expected: 201 },
      { method: 'POST', path: '/webhooks', payload: { url: PUBLIC_HOOK, eventTypes: ['verification.expired'] }, expected: 201 },
      { method: 'PUT', path: `/webhooks/${hookId}`, payload: { eventTypes: ['verification.approved', 'verification.rejected'] }, expected: 200 },
      { method: 'POST', path: `/webhooks/${hookId}/rotate-secret`, expected: 200 },
      { method: 'DELETE', path: `/webhooks/${spare}`, expected: 204 },
      { method: 'PUT', path: '/portal/tenant/security', payload: { requireSecondFactor: true }, expected: 200 },
      { method: 'DELETE', path: `/portal/account/second-factors/${factorId}`, expected: 409 },
    ] as const satisfies readonly { method: Method; path: string; payload?: object; expected: number }[];
  }

  it('asks a portal session for its password again after 5 minutes, for each sensitive action, and accepts it for 5 more', async () => {
    const tenant = await createLoggedInTenant(test);
    const { factorId } = await withTotp(tenant.portal);
    const actions = await sensitiveActions(tenant, factorId);

    clock.advance(STALE_MS);
    for (const action of actions) {
      const refused = await call(tenant.portal, action.method, action.path, 'payload' in action ? action.payload : undefined);
      expect(refused.statusCode, `${action.method} ${action.path}: ${refused.body}`).toBe(403);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.json()).toMatchObject({ code: 'REAUTHENTICATION_REQUIRED', status: 403, freshForSeconds: 300 });
    }
    // Reading, and actions that only protect the account, are not asked.
    expect((await call(tenant.portal, 'GET', '/webhooks')).statusCode).toBe(200);
    expect((await call(tenant.portal, 'GET', '/portal/account/second-factors')).statusCode).toBe(200);

    const wrong = await reauthenticate(tenant.portal, { password: 'not the password at all' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toMatchObject({ code: 'WRONG_PASSWORD' });
    expect((await call(tenant.portal, 'POST', '/portal/account/recovery-codes')).json()).toMatchObject({ code: 'REAUTHENTICATION_REQUIRED' });

    const confirmed = await reauthenticate(tenant.portal, { password: PASSWORD });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toEqual({ authenticatedAt: clock.now().toISOString(), freshUntil: new Date(clock.now().getTime() + 300_000).toISOString() });
    for (const action of actions) {
      const done = await call(tenant.portal, action.method, action.path, 'payload' in action ? action.payload : undefined);
      expect(done.statusCode, `${action.method} ${action.path}: ${done.body}`).toBe(action.expected);
    }
    expect(await auditOf(`user:${tenant.adminUserId}`)).toEqual(expect.arrayContaining(['reauthentication.failed', 'reauthentication.succeeded']));

    clock.advance(STALE_MS);
    expect((await call(tenant.portal, 'PUT', '/portal/tenant/security', { requireSecondFactor: false })).json()).toMatchObject({ code: 'REAUTHENTICATION_REQUIRED' });
  });

  it('takes a code from the authenticator app or a passkey instead of the password, each once', async () => {
    const tenant = await createLoggedInTenant(test);
    const { secret } = await withTotp(tenant.portal);
    const options = (await call(tenant.portal, 'POST', '/portal/account/second-factors/passkeys/options')).json<{ challenge: string }>();
    const authenticator = new SoftwareAuthenticator(RP_ID, ORIGIN);
    expect((await call(tenant.portal, 'POST', '/portal/account/second-factors/passkeys', { name: 'Laptop', response: authenticator.register(options) })).statusCode).toBe(201);

    clock.advance(STALE_MS);
    const code = authenticatorCode(secret, clock.now());
    expect((await reauthenticate(tenant.portal, { code })).statusCode).toBe(200);
    const replayed = await reauthenticate(tenant.portal, { code });
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json()).toMatchObject({ code: 'INVALID_CODE' });
    expect((await call(tenant.portal, 'PUT', '/portal/tenant/security', { requireSecondFactor: false })).statusCode).toBe(200);

    clock.advance(STALE_MS);
    const passkeyOptions = await call(tenant.portal, 'POST', '/portal/account/reauthenticate/passkey-options');
    expect(passkeyOptions.statusCode, passkeyOptions.body).toBe(200);
    const offered = passkeyOptions.json<{ challenge: string; allowCredentials: { id: string }[] }>();
    expect(offered.allowCredentials.map((credential) => credential.id)).toEqual([authenticator.id]);
    const passkey = authenticator.assert(offered);
    expect((await reauthenticate(tenant.portal, { passkey })).statusCode).toBe(200);
    const spent = await reauthenticate(tenant.portal, { passkey });
    expect(spent.statusCode).toBe(400);
    expect(spent.json()).toMatchObject({ code: 'PASSKEY_REJECTED' });
    expect((await call(tenant.portal, 'POST', '/portal/account/recovery-codes')).statusCode).toBe(200);

    // Another account's passkey proves nothing about this one.
    const other = await createLoggedInTenant(test, 'Globex');
    clock.advance(STALE_MS);
    const foreign = await reauthenticate(other.portal, { passkey: authenticator.assert((await call(other.portal, 'POST', '/portal/account/reauthenticate/passkey-options')).json<{ challenge: string }>()) });
    expect(foreign.statusCode).toBe(400);
    expect((await call(other.portal, 'PUT', '/portal/tenant/security', { requireSecondFactor: false })).json()).toMatchObject({ code: 'REAUTHENTICATION_REQUIRED' });
  });

  it('counts wrong answers toward the sign-in lockout, refuses bad input, and needs a session', async () => {
    const tenant = await createLoggedInTenant(test);
    for (let attempt = 1; attempt <= 4; attempt += 1) expect((await reauthenticate(tenant.portal, { password: `wrong password ${attempt}` })).statusCode).toBe(403);
    const fifth = await reauthenticate(tenant.portal, { code: '000000' });
    expect(fifth.statusCode).toBe(400);
    expect(fifth.json<{ detail: string }>().detail).toMatch(/locked/);
    const locked = await reauthenticate(tenant.portal, { password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
    expect(locked.headers['retry-after']).toBeDefined();
    expect((await call({}, 'POST', '/portal/login', { email: tenant.email, password: PASSWORD })).statusCode).toBe(429);

    const fresh = await createLoggedInTenant(test);
    for (const body of [{}, { password: '' }, { code: '12345' }, { password: PASSWORD, code: '123456' }, { recoveryCode: 'aaaa-bbbb-cccc-dddd' }]) {
      const refused = await reauthenticate(fresh.portal, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect((await reauthenticate({}, { password: PASSWORD })).statusCode).toBe(401);
    const crossSite = await test.app.inject({ method: 'POST', url: `${BASE}/portal/account/reauthenticate`, cookies: { svc_portal_session: fresh.sessionToken }, headers: { origin: 'https://evil.example' }, payload: { password: PASSWORD } });
    expect(crossSite.json()).toMatchObject({ code: 'CSRF_REJECTED' });
  });

  it('refreshes only the session that re-authenticated, and leaves API tokens alone (machine credentials)', async () => {
    const partner = await partnerWithToken(test, 'Initech');
    const [user] = await test.db.select({ email: portalUsers.email }).from(portalUsers).where(and(eq(portalUsers.tenantId, partner.tenantId), eq(portalUsers.id, partner.adminUserId)));
    const second = (await call({}, 'POST', '/portal/login', { email: user!.email, password: PASSWORD })).json<{ sessionToken: string }>().sessionToken;
    clock.advance(STALE_MS);
    expect((await reauthenticate(partner.portal, { password: PASSWORD })).statusCode).toBe(200);
    expect((await call({ authorization: `Bearer ${second}` }, 'POST', '/webhooks', { url: PUBLIC_HOOK, eventTypes: ['verification.approved'] })).json()).toMatchObject({ code: 'REAUTHENTICATION_REQUIRED' });
    expect((await call(partner.portal, 'POST', '/webhooks', { url: PUBLIC_HOOK, eventTypes: ['verification.approved'] })).statusCode).toBe(201);

    clock.advance(STALE_MS);
    const created = await call(partner.headers, 'POST', '/webhooks', { url: PUBLIC_HOOK, eventTypes: ['verification.approved'] });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ endpoint: { id: string } }>().endpoint.id;
    expect((await call(partner.headers, 'POST', `/webhooks/${id}/rotate-secret`)).statusCode).toBe(200);
    expect((await call(partner.headers, 'DELETE', `/webhooks/${id}`)).statusCode).toBe(204);
  });

  it('asks staff in the console the same way before removing a factor or making new recovery codes', async () => {
    const email = `reviewer-${Date.now()}@example.com`;
    const { staffId } = await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, clock.now()));
    const login = await call({}, 'POST', '/login', { email, password: PASSWORD }, INTERNAL);
    const staff = { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` };
    const { secret, factorId } = await withTotp(staff, '', INTERNAL);

    clock.advance(STALE_MS);
    for (const [method, path] of [['POST', '/account/recovery-codes'], ['DELETE', `/account/second-factors/${factorId}`]] as const) {
      expect((await call(staff, method, path, undefined, INTERNAL)).json(), path).toMatchObject({ code: 'REAUTHENTICATION_REQUIRED' });
    }
    expect((await call(staff, 'GET', '/review-queue', undefined, INTERNAL)).statusCode).toBe(200);
    const wrong = await reauthenticate(staff, { password: 'not the password at all' }, INTERNAL, '');
    expect(wrong.json()).toMatchObject({ code: 'WRONG_PASSWORD' });
    expect((await reauthenticate(staff, { code: authenticatorCode(secret, clock.now()) }, INTERNAL, '')).statusCode).toBe(200);
    expect((await call(staff, 'POST', '/account/recovery-codes', undefined, INTERNAL)).statusCode).toBe(200);
    expect((await call(staff, 'DELETE', `/account/second-factors/${factorId}`, undefined, INTERNAL)).statusCode).toBe(204);
    expect(await auditOf(`staff:${staffId}`)).toEqual(expect.arrayContaining(['reauthentication.failed', 'reauthentication.succeeded', 'second_factor.removed']));
  });
});
