import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, portalUsers, staffUsers } from '../src/db/schema.js';
import { hashScryptPassword } from '@svc/accounts';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { createPortalUser, createTenant } from '../src/domain/tenants/tenants.js';
import { BASE, buildTestApp, manualClock, PASSWORD, type TestApp } from './helpers.js';

const ARGON2ID_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';
const NEW_PASSWORD = 'a brand new passphrase 42';

describe('portal passwords and sessions', () => {
  let test: TestApp;
  let clock: ReturnType<typeof manualClock>;
  let email: string;
  let tenantId: string;
  let adminUserId: string;

  beforeEach(async () => {
    clock = manualClock(new Date('2026-11-23T10:00:00Z'));
    test = await buildTestApp({}, { clock: clock.now });
    email = `admin-${randomUUID()}@example.com`;
    ({ tenantId, adminUserId } = await test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail: email, adminPassword: PASSWORD }, clock.now())));
  });
  afterEach(() => test.close());

  async function signIn(address: string, password = PASSWORD, userAgent = 'Test browser') {
    const response = await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email: address, password }, headers: { 'user-agent': userAgent } });
    return response;
  }
  async function session(address = email, password = PASSWORD, userAgent = 'Test browser') {
    const response = await signIn(address, password, userAgent);
    expect(response.statusCode, response.body).toBe(200);
    return { authorization: `Bearer ${response.json<{ sessionToken: string }>().sessionToken}` };
  }
  const whoAmI = (headers: Record<string, string>) => test.app.inject({ method: 'GET', url: `${BASE}/portal/session`, headers });
  const changePassword = (headers: Record<string, string>, payload: object) => test.app.inject({ method: 'POST', url: `${BASE}/portal/account/password`, headers, payload });
  const storedHash = async (userId: string) => (await test.db.select({ hash: portalUsers.passwordHash }).from(portalUsers).where(eq(portalUsers.id, userId)))[0]?.hash;
  const auditActions = async () => (await test.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.tenantId, tenantId))).map((row) => row.action);

  describe('password hashing', () => {
    it('stores new passwords as Argon2id with the recorded parameters', async () => {
      expect(await storedHash(adminUserId)).toMatch(new RegExp(`^${ARGON2ID_PREFIX.replaceAll('$', '\\$')}`));
    });

    it('upgrades an old scrypt hash to Argon2id at the next sign-in, and the password still works after', async () => {
      await test.db.update(portalUsers).set({ passwordHash: await hashScryptPassword(PASSWORD) }).where(eq(portalUsers.id, adminUserId));
      expect(await storedHash(adminUserId)).toMatch(/^scrypt\$/);
      await session();
      expect(await storedHash(adminUserId)).toMatch(/^\$argon2id\$/);
      await session();
      expect((await signIn(email, 'not the password')).statusCode).toBe(401);
    });

    it('leaves the hash alone after a failed sign-in', async () => {
      const legacy = await hashScryptPassword(PASSWORD);
      await test.db.update(portalUsers).set({ passwordHash: legacy }).where(eq(portalUsers.id, adminUserId));
      expect((await signIn(email, 'not the password')).statusCode).toBe(401);
      expect(await storedHash(adminUserId)).toBe(legacy);
    });

    it('upgrades staff hashes the same way', async () => {
      const staffEmail = `staff-${randomUUID()}@operator.example`;
      const { staffId } = await test.db.transaction((tx) => createStaffUser(tx, { email: staffEmail, password: PASSWORD }, clock.now()));
      await test.db.update(staffUsers).set({ passwordHash: await hashScryptPassword(PASSWORD) }).where(eq(staffUsers.id, staffId));
      const response = await test.app.inject({ method: 'POST', url: '/api/internal/v1/login', payload: { email: staffEmail, password: PASSWORD } });
      expect(response.statusCode, response.body).toBe(200);
      const [row] = await test.db.select({ hash: staffUsers.passwordHash }).from(staffUsers).where(eq(staffUsers.id, staffId));
      expect(row?.hash).toMatch(/^\$argon2id\$/);
    });

    it('refuses common and short passwords when users are created', async () => {
      for (const password of ['password1234', 'QWERTYUIOP12', 'short pass']) {
        await expect(test.db.transaction((tx) => createPortalUser(tx, { tenantId, email: `u-${randomUUID()}@example.com`, password, role: 'PartnerReadOnly' }, clock.now()))).rejects.toMatchObject({
          code: 'VALIDATION_ERROR',
        });
      }
    });
  });

  describe('password change', () => {
    it('needs the current password, ends the other sessions and keeps this one', async () => {
      const here = await session();
      const elsewhere = await session(email, PASSWORD, 'Other browser');
      const response = await changePassword(here, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ endedSessions: 1 });
      expect((await whoAmI(here)).statusCode).toBe(200);
      expect((await whoAmI(elsewhere)).statusCode).toBe(401);
      expect((await signIn(email, PASSWORD)).statusCode).toBe(401);
      expect((await signIn(email, NEW_PASSWORD)).statusCode).toBe(200);
      expect(await auditActions()).toContain('password.changed');
    });

    it('answers a wrong current password with 403 WRONG_PASSWORD, audited, and locks after five', async () => {
      const here = await session();
      for (let attempt = 1; attempt <= 5; attempt++) {
        const response = await changePassword(here, { currentPassword: `wrong guess ${attempt}`, newPassword: NEW_PASSWORD });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ code: 'WRONG_PASSWORD' });
      }
      const locked = await changePassword(here, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(locked.statusCode).toBe(429);
      expect(locked.json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
      expect(locked.headers['retry-after']).toBeDefined();
      expect((await signIn(email, PASSWORD)).statusCode).toBe(429);
      expect((await auditActions()).filter((action) => action === 'password_change.failed')).toHaveLength(5);
    });

    it('refuses a short, a common or a missing new password with 400 VALIDATION_ERROR', async () => {
      const here = await session();
      for (const payload of [{ currentPassword: PASSWORD, newPassword: 'too short' }, { currentPassword: PASSWORD, newPassword: 'Password1234' }, { currentPassword: PASSWORD }, { newPassword: NEW_PASSWORD }]) {
        const response = await changePassword(here, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      }
      expect((await signIn(email, PASSWORD)).statusCode).toBe(200);
    });

    it('needs a portal session', async () => {
      const response = await changePassword({}, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(response.statusCode).toBe(401);
    });

    it('refuses a cookie-authenticated change from another origin', async () => {
      const token = (await session()).authorization.slice('Bearer '.length);
      const response = await test.app.inject({
        method: 'POST',
        url: `${BASE}/portal/account/password`,
        headers: { cookie: `svc_portal_session=${token}`, origin: 'https://evil.example' },
        payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'CSRF_REJECTED' });
    });
  });

  describe('own sessions', () => {
    const list = (headers: Record<string, string>) => test.app.inject({ method: 'GET', url: `${BASE}/portal/account/sessions`, headers });
    type Listed = { items: Array<{ id: string; current: boolean; userAgent: string | null; ipAddress: string | null; createdAt: string; lastSeenAt: string | null }> };

    it('lists active sessions with created, last seen, browser and address, the current one marked', async () => {
      const first = await session(email, PASSWORD, 'Firefox on Linux');
      clock.advance(5 * 60_000);
      const second = await session(email, PASSWORD, 'Chromium on Android');
      clock.advance(3 * 60_000);
      expect((await whoAmI(first)).statusCode).toBe(200);
      const response = await list(second);
      expect(response.statusCode).toBe(200);
      const { items } = response.json<Listed>();
      expect(items.map((item) => [item.userAgent, item.current])).toEqual([
        ['Chromium on Android', true],
        ['Firefox on Linux', false],
      ]);
      expect(items[1]).toMatchObject({ createdAt: '2026-11-23T10:00:00.000Z', lastSeenAt: '2026-11-23T10:08:00.000Z', ipAddress: '127.0.0.1' });
    });

    it('ends another session, which is refused at its next request', async () => {
      const here = await session();
      const there = await session(email, PASSWORD, 'Other browser');
      const other = (await list(here)).json<Listed>().items.find((item) => !item.current);
      const ended = await test.app.inject({ method: 'DELETE', url: `${BASE}/portal/account/sessions/${other?.id}`, headers: here });
      expect(ended.statusCode).toBe(204);
      expect((await whoAmI(there)).statusCode).toBe(401);
      expect((await list(here)).json<Listed>().items).toHaveLength(1);
      const again = await test.app.inject({ method: 'DELETE', url: `${BASE}/portal/account/sessions/${other?.id}`, headers: here });
      expect(again.statusCode).toBe(404);
      expect(await auditActions()).toContain('session.ended');
    });

    it("cannot see or end another user's sessions, of the same tenant or another", async () => {
      const colleagueEmail = `ro-${randomUUID()}@example.com`;
      await test.db.transaction((tx) => createPortalUser(tx, { tenantId, email: colleagueEmail, password: PASSWORD, role: 'PartnerReadOnly' }, clock.now()));
      const colleague = await session(colleagueEmail);
      const strangerEmail = `s-${randomUUID()}@example.com`;
      await test.db.transaction((tx) => createTenant(tx, { name: 'Other', adminEmail: strangerEmail, adminPassword: PASSWORD }, clock.now()));
      const stranger = await session(strangerEmail);
      const admin = await session();
      const adminSessionId = (await list(admin)).json<Listed>().items[0]?.id;
      for (const headers of [colleague, stranger]) {
        expect((await list(headers)).json<Listed>().items).toHaveLength(1);
        const response = await test.app.inject({ method: 'DELETE', url: `${BASE}/portal/account/sessions/${adminSessionId}`, headers });
        expect(response.statusCode).toBe(404);
      }
      expect((await whoAmI(admin)).statusCode).toBe(200);
    });

    it('answers a malformed session id with 400', async () => {
      const response = await test.app.inject({ method: 'DELETE', url: `${BASE}/portal/account/sessions/not-a-uuid`, headers: await session() });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    });
  });

  describe("an admin ends a user's sessions", () => {
    it('signs the user out everywhere; read-only users and other tenants cannot', async () => {
      const colleagueEmail = `ro-${randomUUID()}@example.com`;
      const { userId } = await test.db.transaction((tx) => createPortalUser(tx, { tenantId, email: colleagueEmail, password: PASSWORD, role: 'PartnerReadOnly' }, clock.now()));
      const laptop = await session(colleagueEmail);
      const phone = await session(colleagueEmail);
      const admin = await session();
      const strangerEmail = `s-${randomUUID()}@example.com`;
      await test.db.transaction((tx) => createTenant(tx, { name: 'Other', adminEmail: strangerEmail, adminPassword: PASSWORD }, clock.now()));
      const stranger = await session(strangerEmail);
      const endAll = (headers: Record<string, string>, id = userId) => test.app.inject({ method: 'DELETE', url: `${BASE}/portal/users/${id}/sessions`, headers });

      expect((await endAll(laptop, adminUserId)).statusCode).toBe(403);
      expect((await endAll(stranger)).statusCode).toBe(404);
      expect((await endAll(admin, randomUUID())).statusCode).toBe(404);
      const response = await endAll(admin);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ endedSessions: 2 });
      expect((await whoAmI(laptop)).statusCode).toBe(401);
      expect((await whoAmI(phone)).statusCode).toBe(401);
      expect((await whoAmI(admin)).statusCode).toBe(200);
      const audited = await test.db.select().from(auditLog).where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'user.sessions_ended')));
      expect(audited[0]).toMatchObject({ actor: `user:${adminUserId}`, target: `user:${userId}` });
    });
  });
});
