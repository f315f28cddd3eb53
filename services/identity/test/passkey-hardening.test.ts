import { itNeeding } from '@svc/db/testing';
import { count, eq, sql } from 'drizzle-orm';
import { openDatabase, selectRows } from '@svc/db';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditLog } from '../src/db/schema.js';
import { pendingSignIns, secondFactors, webauthnChallenges } from '../src/db/schema-second-factors.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { BASE, buildTestApp, createLoggedInTenant, manualClock, PASSWORD, type LoggedInTenant, type TestApp } from './helpers.js';
import { SoftwareAuthenticator } from './passkey-authenticator.js';

type Headers = Record<string, string>;
const ORIGIN = 'https://portal.example.test';
const RP_ID = 'portal.example.test';

describe('passkeys under pressure: renaming, double registration, cloned counters, expired ceremonies', () => {
  let test: TestApp;
  const clock = manualClock();

  beforeAll(async () => {
    test = await buildTestApp({ WEBAUTHN_ORIGINS: ORIGIN }, { clock: clock.now });
  });
  afterAll(() => test.close());

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, headers: Headers = {}, payload?: object) =>
    test.app.inject({ method, url: `${BASE}${path}`, headers, ...(payload ? { payload } : {}) });
  const registrationOptions = async (tenant: LoggedInTenant) => (await call('POST', '/portal/account/second-factors/passkeys/options', tenant.portal)).json<{ challenge: string; user: { id: string } }>();
  const register = (tenant: LoggedInTenant, response: object, name = 'Laptop') => call('POST', '/portal/account/second-factors/passkeys', tenant.portal, { name, response });
  const signInOptions = async () => (await call('POST', '/portal/login/passkey/options')).json<{ challenge: string }>();

  async function withPasskey(tenant: LoggedInTenant) {
    const authenticator = new SoftwareAuthenticator(RP_ID, ORIGIN);
    const registered = await register(tenant, authenticator.register(await registrationOptions(tenant)));
    expect(registered.statusCode, registered.body).toBe(201);
    return { authenticator, factorId: registered.json<{ id: string }>().id };
  }

  /** Holds a lock in a transaction of its own until both racing requests wait on a lock, then lets them go. */
  async function raceBehindLock<T>(lockStatement: string, requests: () => Promise<T>[]): Promise<T[]> {
    const url = test.dependencies.databaseUrl;
    if (!url) throw new Error('needs DATABASE_URL');
    const holder = await openDatabase({ driver: 'postgres', url, maxConnections: 2, skipMigrations: true, schemaName, migrationsFolder });
    try {
      let racing: Promise<T[]> | undefined;
      await holder.db.transaction(async (tx) => {
        await tx.execute(sql.raw(lockStatement));
        racing = Promise.all(requests());
        await vi.waitFor(
          async () => {
            const [row] = await selectRows<{ waiting: number }>(holder.db, sql`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
            expect(row?.waiting).toBeGreaterThanOrEqual(2);
          },
          { timeout: 10_000, interval: 20 },
        );
      });
      return await racing!;
    } finally {
      await holder.close();
    }
  }

  it('renames a passkey with validation; only its owner can, and only passkeys have names', async () => {
    const tenant = await createLoggedInTenant(test);
    const { factorId } = await withPasskey(tenant);
    const renamed = await call('PATCH', `/portal/account/second-factors/passkeys/${factorId}`, tenant.portal, { name: '  Work phone  ' });
    expect(renamed.statusCode, renamed.body).toBe(204);
    const listed = (await call('GET', '/portal/account/second-factors', tenant.portal)).json<{ items: { id: string; name: string }[] }>();
    expect(listed.items).toEqual([expect.objectContaining({ id: factorId, name: 'Work phone' })]);
    const audit = await test.db.select({ after: auditLog.after }).from(auditLog).where(eq(auditLog.action, 'second_factor.renamed'));
    expect(audit).toContainEqual({ after: { kind: 'passkey', factorId, name: 'Work phone' } });

    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(61) }, { name: 'two\nlines' }, { name: 'bell\u0007' }, {}, { name: 'ok', extra: 1 }]) {
      const refused = await call('PATCH', `/portal/account/second-factors/passkeys/${factorId}`, tenant.portal, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect((await call('PATCH', '/portal/account/second-factors/passkeys/not-a-uuid', tenant.portal, { name: 'Phone' })).statusCode).toBe(400);

    const other = await createLoggedInTenant(test, 'Globex');
    const foreign = await call('PATCH', `/portal/account/second-factors/passkeys/${factorId}`, other.portal, { name: 'Mine now' });
    expect(foreign.statusCode).toBe(404);
    const { secret } = (await call('POST', '/portal/account/second-factors/totp', other.portal)).json<{ secret: string }>();
    expect(secret).toBeTruthy();
    const [totp] = await test.db.select({ id: secondFactors.id }).from(secondFactors).where(eq(secondFactors.account, `user:${other.adminUserId}`));
    expect((await call('PATCH', `/portal/account/second-factors/passkeys/${totp!.id}`, other.portal, { name: 'App' })).statusCode).toBe(404);
    expect((await call('PATCH', `/portal/account/second-factors/passkeys/${factorId}`, {}, { name: 'Phone' })).statusCode).toBe(401);
    expect((await call('GET', '/portal/account/second-factors', tenant.portal)).json<{ items: { name: string }[] }>().items[0]?.name).toBe('Work phone');
  });

  it('answers 409 PASSKEY_ALREADY_REGISTERED for a credential registered again, by its owner or anyone else', async () => {
    const tenant = await createLoggedInTenant(test);
    const { authenticator } = await withPasskey(tenant);
    const again = await register(tenant, authenticator.register(await registrationOptions(tenant)));
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json()).toMatchObject({ code: 'PASSKEY_ALREADY_REGISTERED' });
    const other = await createLoggedInTenant(test, 'Globex');
    const copied = await register(other, authenticator.register(await registrationOptions(other)));
    expect(copied.json()).toMatchObject({ code: 'PASSKEY_ALREADY_REGISTERED' });
    expect((await test.db.select({ n: count() }).from(secondFactors).where(eq(secondFactors.credentialId, authenticator.id)))[0]?.n).toBe(1);
  });

  it('purges expired challenges and pending sign-ins in the periodic sweep, keeping live ones', async () => {
    const tenant = await createLoggedInTenant(test);
    await withPasskey(tenant);
    await signInOptions();
    await registrationOptions(tenant);
    const pending = await call('POST', '/portal/login', {}, { email: tenant.email, password: PASSWORD });
    expect(pending.statusCode).toBe(202);
    await call('POST', '/portal/login/second-factor/passkey-options', {}, { pendingSignInToken: pending.json<{ pendingSignInToken: string }>().pendingSignInToken });
    const before = clock.now();
    clock.advance(5 * 60_000 + 1000);
    const live = await signInOptions();

    const rows = async () => ({
      expiredChallenges: (await test.db.select({ n: count() }).from(webauthnChallenges).where(sql`${webauthnChallenges.expiresAt} < ${clock.now().toISOString()}`))[0]?.n,
      expiredPending: (await test.db.select({ n: count() }).from(pendingSignIns).where(sql`${pendingSignIns.expiresAt} < ${clock.now().toISOString()}`))[0]?.n,
      liveChallenge: (await test.db.select({ n: count() }).from(webauthnChallenges).where(sql`${webauthnChallenges.createdAt} > ${before.toISOString()}`))[0]?.n,
    });
    expect((await rows()).expiredPending).toBeGreaterThanOrEqual(1);
    // The worker's own schedule runs the sweep (its first round at once), not a request.
    test.worker.start();
    try {
      await expect.poll(rows, { timeout: 10_000 }).toEqual({ expiredChallenges: 0, expiredPending: 0, liveChallenge: 1 });
    } finally {
      await test.worker.stop();
    }
    expect(live.challenge).toBeTruthy();
    expect(await test.worker.sweepCeremonies()).toEqual({ challenges: 0, pendingSignIns: 0 });
  });

  /** On PGlite one session serialises everything: the race exists only with several connections. */
  itNeeding('DATABASE_URL')('lets only one of two simultaneous sign-ins with a cloned passkey through: the counter moves by compare-and-set (PostgreSQL)', async () => {
    const tenant = await createLoggedInTenant(test);
    const { authenticator, factorId } = await withPasskey(tenant);
    const [first, second] = [await signInOptions(), await signInOptions()];
    // Two copies of one authenticator in the same state sign with the same counter.
    const assertions = [authenticator.assert(first), authenticator.assert(second, { advance: false })];
    const responses = await raceBehindLock(`select id from identity.second_factors where id = '${factorId}' for update`, () =>
      assertions.map((passkey) => call('POST', '/portal/login/passkey', {}, { passkey })),
    );
    expect(responses.map((response) => response.statusCode).sort(), responses.map((response) => response.body).join('\n')).toEqual([200, 401]);
    const [factor] = await test.db.select({ signCount: secondFactors.signCount }).from(secondFactors).where(eq(secondFactors.id, factorId));
    expect(factor?.signCount).toBe(authenticator.counter);
  });

  itNeeding('DATABASE_URL')('answers 409, never 500, when one passkey is registered twice at once (PostgreSQL)', async () => {
    const tenant = await createLoggedInTenant(test);
    const authenticator = new SoftwareAuthenticator(RP_ID, ORIGIN);
    const responses = [authenticator.register(await registrationOptions(tenant)), authenticator.register(await registrationOptions(tenant))];
    // The audit insert waits behind the lock, so each registration holds its factor row uncommitted while the other inserts.
    const answers = await raceBehindLock('lock table identity.audit_log in share mode', () => responses.map((response) => register(tenant, response)));
    expect(answers.map((answer) => answer.statusCode).sort(), answers.map((answer) => answer.body).join('\n')).toEqual([201, 409]);
    expect(answers.find((answer) => answer.statusCode === 409)?.json()).toMatchObject({ code: 'PASSKEY_ALREADY_REGISTERED' });
    expect((await test.db.select({ n: count() }).from(secondFactors).where(eq(secondFactors.credentialId, authenticator.id)))[0]?.n).toBe(1);
  });
});
