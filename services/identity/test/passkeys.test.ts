import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, portalUsers } from '../src/db/schema.js';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { createTenant } from '../src/domain/tenants/tenants.js';
import { BASE, buildTestApp, manualClock, PASSWORD, type TestApp } from './helpers.js';
import { SoftwareAuthenticator } from './passkey-authenticator.js';

type Headers = Record<string, string>;
const ORIGIN = 'https://portal.example.test';
const RP_ID = 'portal.example.test';

describe('passkeys', () => {
  let test: TestApp;
  let clock: ReturnType<typeof manualClock>;
  let email: string;
  let tenantId: string;
  let userId: string;

  beforeEach(async () => {
    clock = manualClock(new Date('2026-11-23T10:00:10Z'));
    test = await buildTestApp({ WEBAUTHN_ORIGINS: `${ORIGIN},http://localhost:3001`, STAFF_REQUIRE_SECOND_FACTOR: 'true' }, { clock: clock.now });
    email = `admin-${randomUUID()}@example.com`;
    ({ tenantId, userId } = await newTenant(email));
  });
  afterEach(() => test.close());

  async function newTenant(adminEmail: string) {
    const created = await test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail, adminPassword: PASSWORD }, clock.now()));
    const [user] = await test.db.select({ id: portalUsers.id }).from(portalUsers).where(eq(portalUsers.email, adminEmail));
    return { tenantId: created.tenantId, userId: user!.id };
  }

  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, headers: Headers = {}, payload?: object) =>
    test.app.inject({ method, url: `${BASE}${path}`, headers, ...(payload ? { payload } : {}) });
  const auditActions = async () => (await test.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.tenantId, tenantId))).map((row) => row.action);

  async function session(address = email): Promise<Headers> {
    const response = await call('POST', '/portal/login', {}, { email: address, password: PASSWORD });
    expect(response.statusCode, response.body).toBe(200);
    return { authorization: `Bearer ${response.json<{ sessionToken: string }>().sessionToken}` };
  }

  async function registerPasskey(headers: Headers, authenticator = new SoftwareAuthenticator(RP_ID, ORIGIN), prefix = '/portal') {
    const options = await call('POST', `${prefix}/account/second-factors/passkeys/options`, headers);
    expect(options.statusCode, options.body).toBe(200);
    const body = options.json<{ challenge: string; rp: { id: string }; user: { id: string }; authenticatorSelection: { residentKey: string } }>();
    expect(body.rp.id).toBe(RP_ID);
    expect(body.authenticatorSelection.residentKey).toBe('required');
    const registered = await call('POST', `${prefix}/account/second-factors/passkeys`, headers, { name: 'Laptop', response: authenticator.register(body) });
    expect(registered.statusCode, registered.body).toBe(201);
    return { authenticator, registered: registered.json<{ id: string; recoveryCodes: string[] | null }>() };
  }

  async function signInAlone(authenticator: SoftwareAuthenticator, assertion: Parameters<SoftwareAuthenticator['assert']>[1] = {}) {
    const options = await call('POST', '/portal/login/passkey/options');
    expect(options.statusCode, options.body).toBe(200);
    const body = options.json<{ challenge: string; allowCredentials?: unknown[] }>();
    expect(body.allowCredentials ?? []).toEqual([]);
    const passkey = authenticator.assert(body, assertion);
    return { response: await call('POST', '/portal/login/passkey', {}, { passkey }), passkey };
  }

  it('registers a passkey, lists it, and signs in with it alone', async () => {
    const headers = await session();
    const { authenticator, registered } = await registerPasskey(headers);
    expect(registered.recoveryCodes).toHaveLength(10);
    const list = await call('GET', '/portal/account/second-factors', headers);
    expect(list.json()).toMatchObject({ items: [{ id: registered.id, kind: 'passkey', name: 'Laptop', lastUsedAt: null }], recoveryCodesLeft: 10 });

    const { response } = await signInAlone(authenticator);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ enrolmentOnly: false });
    expect(response.headers['set-cookie']).toBeDefined();
    const signedIn = { authorization: `Bearer ${response.json<{ sessionToken: string }>().sessionToken}` };
    expect((await call('GET', '/portal/session', signedIn)).statusCode).toBe(200);
    const listed = await call('GET', '/portal/account/second-factors', signedIn);
    expect(listed.json<{ items: { lastUsedAt: string | null }[] }>().items[0]?.lastUsedAt).not.toBeNull();
    expect(await auditActions()).toEqual(expect.arrayContaining(['second_factor.enrolled', 'login.succeeded']));
  });

  it('asks for the passkey as the second step after the password, bound to that sign-in', async () => {
    const { authenticator } = await registerPasskey(await session());
    const login = await call('POST', '/portal/login', {}, { email, password: PASSWORD });
    expect(login.statusCode, login.body).toBe(202);
    const { pendingSignInToken } = login.json<{ pendingSignInToken: string }>();
    const options = await call('POST', '/portal/login/second-factor/passkey-options', {}, { pendingSignInToken });
    expect(options.statusCode, options.body).toBe(200);
    const body = options.json<{ challenge: string; allowCredentials: { id: string }[] }>();
    expect(body.allowCredentials.map((credential) => credential.id)).toEqual([authenticator.id]);

    // The challenge of a passkey alone is not the second step's.
    const alone = await call('POST', '/portal/login/passkey/options');
    const wrongBinding = await call('POST', '/portal/login/second-factor', {}, { pendingSignInToken, passkey: authenticator.assert(alone.json()) });
    expect(wrongBinding.statusCode).toBe(400);
    expect(wrongBinding.json()).toMatchObject({ code: 'PASSKEY_REJECTED' });

    const done = await call('POST', '/portal/login/second-factor', {}, { pendingSignInToken, passkey: authenticator.assert(body) });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ enrolmentOnly: false });
    expect(await auditActions()).toContain('second_factor.succeeded');

    const expired = await call('POST', '/portal/login/second-factor/passkey-options', {}, { pendingSignInToken });
    expect(expired.statusCode).toBe(401);
  });

  it('refuses another origin, a replayed challenge and a counter that does not move forward', async () => {
    const headers = await session();
    const options = await call('POST', '/portal/account/second-factors/passkeys/options', headers);
    const stranger = new SoftwareAuthenticator(RP_ID, 'https://evil.example');
    const refused = await call('POST', '/portal/account/second-factors/passkeys', headers, { response: stranger.register(options.json()) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'PASSKEY_REJECTED' });
    expect(refused.json<{ detail: string }>().detail).toContain('origin');

    const { authenticator } = await registerPasskey(headers);
    const wrongOrigin = await signInAlone(authenticator, { origin: 'https://evil.example' });
    expect(wrongOrigin.response.statusCode).toBe(401);

    const good = await signInAlone(authenticator);
    expect(good.response.statusCode, good.response.body).toBe(200);
    const replayed = await call('POST', '/portal/login/passkey', {}, { passkey: good.passkey });
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json()).toMatchObject({ code: 'PASSKEY_REJECTED' });

    const cloned = await signInAlone(authenticator, { advance: false });
    expect(cloned.response.statusCode).toBe(401);
    const unverified = await signInAlone(authenticator, { userVerified: false });
    expect(unverified.response.statusCode).toBe(401);
    expect(await auditActions()).toContain('login.failed');
  });

  it('keeps passkeys to their tenant, refuses a disabled user, and keeps the last one while required', async () => {
    const headers = await session();
    const { authenticator, registered } = await registerPasskey(headers);
    const otherEmail = `other-${randomUUID()}@example.com`;
    await newTenant(otherEmail);
    const other = await session(otherEmail);
    expect((await call('GET', '/portal/account/second-factors', other)).json()).toMatchObject({ items: [] });
    expect((await call('DELETE', `/portal/account/second-factors/${registered.id}`, other)).statusCode).toBe(404);

    const put = await test.app.inject({ method: 'PUT', url: `${BASE}/portal/tenant/security`, headers, payload: { requireSecondFactor: true } });
    expect(put.statusCode, put.body).toBe(200);
    const last = await call('DELETE', `/portal/account/second-factors/${registered.id}`, headers);
    expect(last.statusCode).toBe(409);

    await test.db.update(portalUsers).set({ status: 'disabled' }).where(eq(portalUsers.id, userId));
    const disabled = await signInAlone(authenticator);
    expect(disabled.response.statusCode).toBe(403);
    expect(disabled.response.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
  });

  it('serves staff through the same routes: register in the console, then the passkey as the second step', async () => {
    const staffEmail = `reviewer-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createStaffUser(tx, { email: staffEmail, password: PASSWORD }, clock.now()));
    const internal = (method: 'POST' | 'GET', path: string, headers: Headers = {}, payload?: object) =>
      test.app.inject({ method, url: `/api/internal/v1${path}`, headers, ...(payload ? { payload } : {}) });
    const first = await internal('POST', '/login', {}, { email: staffEmail, password: PASSWORD });
    const restricted = { authorization: `Bearer ${first.json<{ sessionToken: string }>().sessionToken}` };
    const options = await internal('POST', '/account/second-factors/passkeys/options', restricted);
    expect(options.statusCode, options.body).toBe(200);
    const authenticator = new SoftwareAuthenticator(RP_ID, ORIGIN);
    const registered = await internal('POST', '/account/second-factors/passkeys', restricted, { response: authenticator.register(options.json()) });
    expect(registered.statusCode, registered.body).toBe(201);
    expect((await internal('GET', '/session', restricted)).json()).toMatchObject({ enrolmentOnly: false });

    const login = await internal('POST', '/login', {}, { email: staffEmail, password: PASSWORD });
    expect(login.statusCode).toBe(202);
    const { pendingSignInToken } = login.json<{ pendingSignInToken: string }>();
    const stepOptions = await internal('POST', '/login/second-factor/passkey-options', {}, { pendingSignInToken });
    const done = await internal('POST', '/login/second-factor', {}, { pendingSignInToken, passkey: authenticator.assert(stepOptions.json()) });
    expect(done.statusCode, done.body).toBe(200);
    // A staff passkey does not open the portal, but alone opens the console.
    const portal = await signInAlone(authenticator);
    expect(portal.response.statusCode).toBe(401);
    const aloneOptions = await internal('POST', '/login/passkey/options');
    const alone = await internal('POST', '/login/passkey', {}, { passkey: authenticator.assert(aloneOptions.json()) });
    expect(alone.statusCode, alone.body).toBe(200);
    expect(alone.json()).toMatchObject({ enrolmentOnly: false });
  });
});
