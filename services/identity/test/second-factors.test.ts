import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog } from '../src/db/schema.js';
import { totpCode } from '../src/domain/accounts/second-factors/totp.js';
import { createPortalUser, createTenant, updateTenantSettings } from '../src/domain/tenants/tenants.js';
import { BASE, buildTestApp, manualClock, PASSWORD, type TestApp } from './helpers.js';
import { authenticatorCode } from './second-factor-helpers.js';

type Headers = Record<string, string>;

describe('TOTP second factor for portal users', () => {
  let test: TestApp;
  let clock: ReturnType<typeof manualClock>;
  let email: string;
  let tenantId: string;

  beforeEach(async () => {
    clock = manualClock(new Date('2026-11-23T10:00:10Z'));
    test = await buildTestApp({}, { clock: clock.now });
    email = `admin-${randomUUID()}@example.com`;
    ({ tenantId } = await test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail: email, adminPassword: PASSWORD }, clock.now())));
  });
  afterEach(() => test.close());

  const signIn = (address = email, password = PASSWORD) => test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email: address, password } });
  const secondStep = (payload: object, headers: Headers = {}) => test.app.inject({ method: 'POST', url: `${BASE}/portal/login/second-factor`, payload, headers });
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, headers: Headers, payload?: object) =>
    test.app.inject({ method, url: `${BASE}${path}`, headers, ...(payload ? { payload } : {}) });
  const auditActions = async () => (await test.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.tenantId, tenantId))).map((row) => row.action);

  async function session(address = email): Promise<Headers> {
    const response = await signIn(address);
    expect(response.statusCode, response.body).toBe(200);
    return { authorization: `Bearer ${response.json<{ sessionToken: string }>().sessionToken}` };
  }

  /** Sets up TOTP through the API, as the portal's Security screen does; returns the secret and recovery codes. */
  async function enrolTotp(headers: Headers) {
    const started = await call('POST', '/portal/account/second-factors/totp', headers);
    expect(started.statusCode, started.body).toBe(200);
    const { secret, otpauthUri } = started.json<{ secret: string; otpauthUri: string }>();
    expect(otpauthUri).toContain(`secret=${secret}`);
    const confirmed = await call('POST', '/portal/account/second-factors/totp/confirm', headers, { code: authenticatorCode(secret, clock.now()) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    return { secret, recoveryCodes: confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes };
  }

  async function pendingToken(address = email) {
    const response = await signIn(address);
    expect(response.statusCode, response.body).toBe(202);
    return response.json<{ pendingSignInToken: string }>().pendingSignInToken;
  }

  it('computes the RFC 6238 test vector (SHA-1, T = 59 s)', () => {
    const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // "12345678901234567890"
    expect(totpCode(rfcSecret, 1)).toBe('287082');
    expect(authenticatorCode(rfcSecret, new Date(59_000))).toBe('287082');
  });

  it('enrols with a confirmation code, then asks for a code after the password and signs in with it', async () => {
    const headers = await session();
    const { secret, recoveryCodes } = await enrolTotp(headers);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const listed = await call('GET', '/portal/account/second-factors', headers);
    expect(listed.json()).toMatchObject({ items: [{ kind: 'totp' }], recoveryCodesLeft: 10 });

    clock.advance(30_000);
    const token = await pendingToken();
    // The pending token alone is no session.
    expect((await call('GET', '/portal/session', { authorization: `Bearer ${token}` })).statusCode).toBe(401);
    const done = await secondStep({ pendingSignInToken: token, code: authenticatorCode(secret, clock.now()) });
    expect(done.statusCode, done.body).toBe(200);
    const sessionToken = done.json<{ sessionToken: string }>().sessionToken;
    expect((await call('GET', '/portal/session', { authorization: `Bearer ${sessionToken}` })).statusCode).toBe(200);
    // Spent: the same pending token cannot make a second session.
    clock.advance(30_000);
    expect((await secondStep({ pendingSignInToken: token, code: authenticatorCode(secret, clock.now()) })).statusCode).toBe(401);
    expect(await auditActions()).toEqual(expect.arrayContaining(['second_factor.enrolled', 'login.second_factor_required', 'second_factor.succeeded']));
  });

  it('accepts the codes of one step either side of now and nothing further', async () => {
    const { secret } = await enrolTotp(await session());
    clock.advance(120_000);
    const at = (offsetSteps: number) => authenticatorCode(secret, new Date(clock.now().getTime() + offsetSteps * 30_000));
    expect((await secondStep({ pendingSignInToken: await pendingToken(), code: at(-2) })).statusCode).toBe(400);
    expect((await secondStep({ pendingSignInToken: await pendingToken(), code: at(2) })).statusCode).toBe(400);
    expect((await secondStep({ pendingSignInToken: await pendingToken(), code: at(-1) })).statusCode).toBe(200);
    expect((await secondStep({ pendingSignInToken: await pendingToken(), code: at(1) })).statusCode).toBe(200);
  });

  it('refuses a replayed code, and any code of an earlier step once a later one was used', async () => {
    const { secret } = await enrolTotp(await session());
    // The confirmation code of the enrolment cannot sign in: its step is remembered.
    expect((await secondStep({ pendingSignInToken: await pendingToken(), code: authenticatorCode(secret, clock.now()) })).statusCode).toBe(400);
    clock.advance(60_000);
    const code = authenticatorCode(secret, clock.now());
    expect((await secondStep({ pendingSignInToken: await pendingToken(), code })).statusCode).toBe(200);
    const replay = await secondStep({ pendingSignInToken: await pendingToken(), code });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ code: 'INVALID_CODE' });
    expect(await auditActions()).toContain('second_factor.failed');
  });

  it('signs in once with each recovery code, forgiving case and dashes', async () => {
    const { recoveryCodes } = await enrolTotp(await session());
    const first = recoveryCodes[0]!;
    const typed = first.toUpperCase().replaceAll('-', ' ');
    expect((await secondStep({ pendingSignInToken: await pendingToken(), recoveryCode: typed })).statusCode).toBe(200);
    expect((await secondStep({ pendingSignInToken: await pendingToken(), recoveryCode: first })).statusCode).toBe(400);
    const headers = await (async () => {
      const done = await secondStep({ pendingSignInToken: await pendingToken(), recoveryCode: recoveryCodes[1]! });
      return { authorization: `Bearer ${done.json<{ sessionToken: string }>().sessionToken}` };
    })();
    expect((await call('GET', '/portal/account/second-factors', headers)).json()).toMatchObject({ recoveryCodesLeft: 8 });
    const regenerated = await call('POST', '/portal/account/recovery-codes', headers);
    expect(regenerated.json<{ recoveryCodes: string[] }>().recoveryCodes).toHaveLength(10);
    // Regenerating replaces the old codes.
    expect((await secondStep({ pendingSignInToken: await pendingToken(), recoveryCode: recoveryCodes[2]! })).statusCode).toBe(400);
  });

  it('locks the address after five wrong second steps, like five wrong passwords, and audits each', async () => {
    const { secret } = await enrolTotp(await session());
    const token = await pendingToken();
    for (let attempt = 1; attempt <= 5; attempt++) expect((await secondStep({ pendingSignInToken: token, code: '000000' })).statusCode).toBe(400);
    const locked = await signIn();
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
    // Re-entering the password does not restart the count.
    clock.advance(16 * 60_000);
    const fresh = await pendingToken();
    expect((await secondStep({ pendingSignInToken: fresh, code: authenticatorCode(secret, clock.now()) })).statusCode).toBe(200);
    expect((await auditActions()).filter((action) => action === 'second_factor.failed')).toHaveLength(5);
    expect(await auditActions()).toContain('login.locked');
  });

  it('does not reset the failure count when the password is entered again during the second step', async () => {
    await enrolTotp(await session());
    for (let round = 0; round < 2; round++) {
      const token = await pendingToken();
      for (let attempt = 0; attempt < 2; attempt++) expect((await secondStep({ pendingSignInToken: token, code: '000000' })).statusCode).toBe(400);
    }
    const token = await pendingToken();
    expect((await secondStep({ pendingSignInToken: token, code: '000000' })).json<{ detail: string }>().detail).toContain('locked');
  });

  it('takes the pending token from its cookie, and lets it expire after five minutes', async () => {
    const { secret } = await enrolTotp(await session());
    clock.advance(30_000);
    const response = await signIn();
    const cookie = response.cookies.find((entry) => entry.name === 'svc_portal_pending');
    expect(cookie).toMatchObject({ httpOnly: true, path: `${BASE}/portal/login` });
    const done = await secondStep({ code: authenticatorCode(secret, clock.now()) }, { cookie: `svc_portal_pending=${cookie!.value}` });
    expect(done.statusCode, done.body).toBe(200);
    const late = await pendingToken();
    clock.advance(5 * 60_000 + 1000);
    expect((await secondStep({ pendingSignInToken: late, code: authenticatorCode(secret, clock.now()) })).statusCode).toBe(401);
  });

  it('refuses a wrong confirmation code and keeps the unconfirmed secret out of sign-in', async () => {
    const headers = await session();
    await call('POST', '/portal/account/second-factors/totp', headers);
    const wrong = await call('POST', '/portal/account/second-factors/totp/confirm', headers, { code: '123456' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'INVALID_CODE' });
    expect((await signIn()).statusCode).toBe(200);
  });

  it('removes the factor (and the recovery codes with it), after which the password alone signs in', async () => {
    const headers = await session();
    await enrolTotp(headers);
    const [factor] = (await call('GET', '/portal/account/second-factors', headers)).json<{ items: { id: string }[] }>().items;
    expect((await call('POST', '/portal/account/second-factors/totp', headers)).statusCode).toBe(409);
    expect((await call('DELETE', `/portal/account/second-factors/${factor!.id}`, headers)).statusCode).toBe(204);
    expect((await call('GET', '/portal/account/second-factors', headers)).json()).toEqual({ items: [], recoveryCodesLeft: 0 });
    expect((await signIn()).statusCode).toBe(200);
    expect(await auditActions()).toContain('second_factor.removed');
  });

  it("keeps factors to their owner: another user's factor id is not found", async () => {
    const headers = await session();
    await enrolTotp(headers);
    const [factor] = (await call('GET', '/portal/account/second-factors', headers)).json<{ items: { id: string }[] }>().items;
    const colleague = `colleague-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createPortalUser(tx, { tenantId, email: colleague, password: PASSWORD, role: 'PartnerAdmin' }, clock.now()));
    expect((await call('DELETE', `/portal/account/second-factors/${factor!.id}`, await session(colleague))).statusCode).toBe(404);
  });

  describe('a tenant requiring a second factor', () => {
    it('sends a user without one to enrol: the session opens nothing else until a factor is confirmed', async () => {
      const admin = await session();
      const required = await call('PUT', '/portal/tenant/security', admin, { requireSecondFactor: true });
      expect(required.statusCode, required.body).toBe(200);
      const response = await signIn();
      expect(response.json()).toMatchObject({ enrolmentOnly: true });
      const restricted = { authorization: `Bearer ${response.json<{ sessionToken: string }>().sessionToken}` };
      const refused = await call('GET', '/verifications', restricted);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'SECOND_FACTOR_ENROLMENT_REQUIRED' });
      expect((await call('GET', '/portal/session', restricted)).json()).toMatchObject({ enrolmentOnly: true, tenant: { requireSecondFactor: true } });
      await enrolTotp(restricted);
      expect((await call('GET', '/verifications', restricted)).statusCode).toBe(200);
      // The last factor cannot be removed while the tenant requires one.
      const [factor] = (await call('GET', '/portal/account/second-factors', restricted)).json<{ items: { id: string }[] }>().items;
      expect((await call('DELETE', `/portal/account/second-factors/${factor!.id}`, restricted)).statusCode).toBe(409);
      expect(await auditActions()).toContain('tenant.updated');
    });

    it('is switched by the operator with tenant:update --require-second-factor, which checks its value', async () => {
      await test.db.transaction((tx) => updateTenantSettings(tx, tenantId, { requireSecondFactor: 'true' }, clock.now()));
      expect((await signIn()).json()).toMatchObject({ enrolmentOnly: true });
      await expect(test.db.transaction((tx) => updateTenantSettings(tx, tenantId, { requireSecondFactor: 'yes' }, clock.now()))).rejects.toThrow(/--require-second-factor must be true or false/);
      await expect(test.db.transaction((tx) => updateTenantSettings(tx, tenantId, {}, clock.now()))).rejects.toThrow(/at least one setting/);
    });

    it('is switched by PartnerAdmin only', async () => {
      const reader = `reader-${randomUUID()}@example.com`;
      await test.db.transaction((tx) => createPortalUser(tx, { tenantId, email: reader, password: PASSWORD, role: 'PartnerReadOnly' }, clock.now()));
      expect((await call('PUT', '/portal/tenant/security', await session(reader), { requireSecondFactor: true })).statusCode).toBe(403);
    });
  });
});
