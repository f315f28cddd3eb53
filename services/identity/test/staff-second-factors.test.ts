import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog } from '../src/db/schema.js';
import { loadIdentityConfig } from '../src/config.js';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { buildTestApp, manualClock, PASSWORD, type TestApp } from './helpers.js';
import { authenticatorCode } from './second-factor-helpers.js';

const INTERNAL = '/api/internal/v1';
type Headers = Record<string, string>;

describe('second factors for staff', () => {
  let test: TestApp;
  let clock: ReturnType<typeof manualClock>;
  let email: string;
  let staffId: string;

  beforeEach(async () => {
    clock = manualClock(new Date('2026-11-23T10:00:10Z'));
    test = await buildTestApp({ STAFF_REQUIRE_SECOND_FACTOR: 'true' }, { clock: clock.now });
    email = `reviewer-${randomUUID()}@example.com`;
    ({ staffId } = await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, clock.now())));
  });
  afterEach(() => test.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, headers: Headers = {}, payload?: object) =>
    test.app.inject({ method, url: `${INTERNAL}${path}`, headers, ...(payload ? { payload } : {}) });
  const bearer = (response: { json: <T>() => T }) => ({ authorization: `Bearer ${response.json<{ sessionToken: string }>().sessionToken}` });

  it('sends a reviewer without a factor to enrol, then asks for the code at every later sign-in', async () => {
    const first = await call('POST', '/login', {}, { email, password: PASSWORD });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ enrolmentOnly: true });
    const restricted = bearer(first);
    const refused = await call('GET', '/review-queue', restricted);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'SECOND_FACTOR_ENROLMENT_REQUIRED' });
    expect((await call('GET', '/session', restricted)).json()).toMatchObject({ enrolmentOnly: true });

    const started = await call('POST', '/account/second-factors/totp', restricted);
    expect(started.statusCode, started.body).toBe(200);
    const { secret, otpauthUri } = started.json<{ secret: string; otpauthUri: string }>();
    expect(otpauthUri).toContain(encodeURIComponent(email));
    const confirmed = await call('POST', '/account/second-factors/totp/confirm', restricted, { code: authenticatorCode(secret, clock.now()) });
    expect(confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes).toHaveLength(10);
    expect((await call('GET', '/review-queue', restricted)).statusCode).toBe(200);

    clock.advance(30_000);
    const second = await call('POST', '/login', {}, { email, password: PASSWORD });
    expect(second.statusCode).toBe(202);
    const { pendingSignInToken } = second.json<{ pendingSignInToken: string }>();
    expect((await call('POST', '/login/second-factor', {}, { pendingSignInToken, code: '000000' })).statusCode).toBe(400);
    const done = await call('POST', '/login/second-factor', {}, { pendingSignInToken, code: authenticatorCode(secret, clock.now()) });
    expect(done.statusCode, done.body).toBe(200);
    expect((await call('GET', '/review-queue', bearer(done))).statusCode).toBe(200);

    // The last factor stays while staff must have one.
    const [factor] = (await call('GET', '/account/second-factors', bearer(done))).json<{ items: { id: string }[] }>().items;
    expect((await call('DELETE', `/account/second-factors/${factor!.id}`, bearer(done))).statusCode).toBe(409);
    const actions = (await test.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.actor, `staff:${staffId}`))).map((row) => row.action);
    expect(actions).toEqual(expect.arrayContaining(['second_factor.enrolled', 'second_factor.failed', 'second_factor.succeeded']));
  });

  it('locks a reviewer out after five wrong codes', async () => {
    const session = bearer(await call('POST', '/login', {}, { email, password: PASSWORD }));
    const { secret } = (await call('POST', '/account/second-factors/totp', session)).json<{ secret: string }>();
    await call('POST', '/account/second-factors/totp/confirm', session, { code: authenticatorCode(secret, clock.now()) });
    const { pendingSignInToken } = (await call('POST', '/login', {}, { email, password: PASSWORD })).json<{ pendingSignInToken: string }>();
    for (let attempt = 0; attempt < 5; attempt++) await call('POST', '/login/second-factor', {}, { pendingSignInToken, code: '000000' });
    expect((await call('POST', '/login', {}, { email, password: PASSWORD })).statusCode).toBe(429);
  });
});

describe('STAFF_REQUIRE_SECOND_FACTOR', () => {
  it('defaults to true with a database URL and false on the embedded default', () => {
    expect(loadIdentityConfig({}).STAFF_REQUIRE_SECOND_FACTOR).toBe(false);
    expect(loadIdentityConfig({ DATABASE_URL: 'postgres://localhost/x', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') }).STAFF_REQUIRE_SECOND_FACTOR).toBe(true);
    expect(loadIdentityConfig({ DATABASE_URL: 'postgres://localhost/x', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'), STAFF_REQUIRE_SECOND_FACTOR: 'false' }).STAFF_REQUIRE_SECOND_FACTOR).toBe(false);
    expect(() => loadIdentityConfig({ STAFF_REQUIRE_SECOND_FACTOR: 'yes' })).toThrow(/STAFF_REQUIRE_SECOND_FACTOR/);
  });
});
