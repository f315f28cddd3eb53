import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { itNeeding } from '@svc/db/testing';
import { auditLog, portalInvitations } from '../src/db/schema.js';
import { hashToken } from '@svc/accounts';
import { createPortalUser } from '../src/domain/tenants/tenants.js';
import { BASE, buildTestApp, createLoggedInTenant, manualClock, PASSWORD, type LoggedInTenant, type TestApp } from './helpers.js';

const COLLEAGUE_PASSWORD = 'a colleague passphrase 77';
const HOUR = 3600_000;

interface Member {
  id: string;
  email: string;
  role: string;
  status: string;
  lastSignInAt: string | null;
  you: boolean;
}

describe('team management in the portal', () => {
  let test: TestApp;
  let clock: ReturnType<typeof manualClock>;
  let acme: LoggedInTenant;

  beforeEach(async () => {
    clock = manualClock(new Date('2026-11-23T10:00:00Z'));
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', PUBLIC_BASE_URL: 'https://portal.example' }, { clock: clock.now });
    acme = await createLoggedInTenant(test, 'Acme');
  });
  afterEach(() => test.close());

  const call = (headers: Record<string, string>, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
    test.app.inject({ method, url: `${BASE}${path}`, headers, ...(payload ? { payload } : {}) });
  const invite = (tenant: LoggedInTenant, email: string, role = 'PartnerReadOnly') => call(tenant.portal, 'POST', '/portal/team/invitations', { email, role });
  const tokenOf = (invitationUrl: string) => invitationUrl.split('#')[1]!;
  const accept = (token: string, password = COLLEAGUE_PASSWORD, headers: Record<string, string> = {}) => call(headers, 'POST', '/portal/invitations/accept', { token, password });
  const lookup = (token: string) => call({}, 'POST', '/portal/invitations/lookup', { token });
  const members = async (tenant: LoggedInTenant) => (await call(tenant.portal, 'GET', '/portal/team/users')).json<{ items: Member[] }>().items;
  const update = (tenant: LoggedInTenant, userId: string, payload: object) => call(tenant.portal, 'PATCH', `/portal/team/users/${userId}`, payload);
  const signIn = (email: string, password = PASSWORD) => call({}, 'POST', '/portal/login', { email, password });
  const sessionOf = async (email: string, password = PASSWORD) => {
    const response = await signIn(email, password);
    expect(response.statusCode, response.body).toBe(200);
    return { authorization: `Bearer ${response.json<{ sessionToken: string }>().sessionToken}` };
  };
  const whoAmI = (headers: Record<string, string>) => call(headers, 'GET', '/portal/session');
  const auditActions = async (tenantId: string) => (await test.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.tenantId, tenantId))).map((row) => row.action);

  /** A second user of the tenant made beside the API (as user:create does), with a session. */
  async function colleague(tenant: LoggedInTenant, role: 'PartnerAdmin' | 'PartnerReadOnly') {
    const email = `${role.toLowerCase()}-${randomUUID()}@example.com`;
    const { userId } = await test.db.transaction((tx) => createPortalUser(tx, { tenantId: tenant.tenantId, email, password: PASSWORD, role }, clock.now()));
    return { userId, email, portal: await sessionOf(email) };
  }

  async function invitedToken(email = `new-${randomUUID()}@example.com`, role = 'PartnerReadOnly') {
    const response = await invite(acme, email, role);
    expect(response.statusCode, response.body).toBe(201);
    return { email, token: tokenOf(response.json<{ invitationUrl: string }>().invitationUrl), id: response.json<{ invitation: { id: string } }>().invitation.id };
  }

  describe('invitations', () => {
    it('answers a one-time link under the public origin with the token only in its fragment, stored only as a hash', async () => {
      const email = `New.Colleague-${randomUUID()}@Example.com`;
      const response = await invite(acme, email);
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json<{ invitationUrl: string; invitation: { email: string; role: string; expiresAt: string } }>();
      expect(body.invitationUrl).toMatch(/^https:\/\/portal\.example\/portal\/invitations#svc_inv_[A-Za-z0-9_-]{20,}$/);
      expect(body.invitation).toMatchObject({ email: email.toLowerCase(), role: 'PartnerReadOnly', expiresAt: '2026-11-26T10:00:00.000Z' });
      const [stored] = await test.db.select().from(portalInvitations).where(eq(portalInvitations.tenantId, acme.tenantId));
      expect(stored?.tokenHash).toBe(hashToken(tokenOf(body.invitationUrl)));
      expect(JSON.stringify(stored)).not.toContain(tokenOf(body.invitationUrl));
      expect(await auditActions(acme.tenantId)).toContain('invitation.created');
    });

    it('shows tenant and role, then accepting sets the password, signs the colleague in, and the link is used up', async () => {
      const { email, token } = await invitedToken();
      const described = await lookup(token);
      expect(described.statusCode, described.body).toBe(200);
      expect(described.json()).toEqual({ email, role: 'PartnerReadOnly', tenantName: 'Acme', expiresAt: '2026-11-26T10:00:00.000Z' });
      const accepted = await accept(token);
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(accepted.headers['set-cookie']).toMatch(/^svc_portal_session=svc_ps_/);
      const session = { authorization: `Bearer ${accepted.json<{ sessionToken: string }>().sessionToken}` };
      expect((await whoAmI(session)).json()).toMatchObject({ user: { email, role: 'PartnerReadOnly' }, tenant: { id: acme.tenantId } });
      expect((await signIn(email, COLLEAGUE_PASSWORD)).statusCode).toBe(200);
      const again = await accept(token);
      expect(again.statusCode).toBe(410);
      expect(again.json()).toMatchObject({ code: 'INVITATION_USED' });
      expect((await lookup(token)).json()).toMatchObject({ code: 'INVITATION_USED' });
      expect(await auditActions(acme.tenantId)).toEqual(expect.arrayContaining(['invitation.accepted', 'user.created']));
      expect((await call(acme.portal, 'GET', '/portal/team/invitations')).json()).toEqual({ items: [] });
    });

    it('refuses an expired link after 72 hours with 410 INVITATION_EXPIRED', async () => {
      const { token } = await invitedToken();
      clock.advance(72 * HOUR - 1000);
      expect((await lookup(token)).statusCode).toBe(200);
      clock.advance(1000);
      const response = await accept(token);
      expect(response.statusCode).toBe(410);
      expect(response.json()).toMatchObject({ code: 'INVITATION_EXPIRED' });
      // Portal sessions last 8 hours: the admin signs in again to see the list.
      expect((await call(await sessionOf(acme.email), 'GET', '/portal/team/invitations')).json()).toEqual({ items: [] });
    });

    it('lists pending invitations; a revoked link answers 410 INVITATION_REVOKED; an unknown one 404', async () => {
      const { token, id, email } = await invitedToken();
      const listed = await call(acme.portal, 'GET', '/portal/team/invitations');
      expect(listed.json()).toEqual({ items: [expect.objectContaining({ id, email, role: 'PartnerReadOnly', invitedBy: acme.adminUserId })] });
      expect((await call(acme.portal, 'DELETE', `/portal/team/invitations/${id}`)).statusCode).toBe(204);
      expect((await call(acme.portal, 'DELETE', `/portal/team/invitations/${id}`)).statusCode).toBe(404);
      const revoked = await accept(token);
      expect(revoked.statusCode).toBe(410);
      expect(revoked.json()).toMatchObject({ code: 'INVITATION_REVOKED' });
      const unknown = await accept('svc_inv_not-a-real-token');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 'INVITATION_NOT_FOUND' });
      expect(await auditActions(acme.tenantId)).toContain('invitation.revoked');
    });

    it('a re-invite of the same address replaces the pending invitation: only the newest link works, with the newest role', async () => {
      const email = `twice-${randomUUID()}@example.com`;
      const first = await invitedToken(email, 'PartnerReadOnly');
      const second = await invitedToken(email, 'PartnerAdmin');
      expect((await call(acme.portal, 'GET', '/portal/team/invitations')).json<{ items: unknown[] }>().items).toHaveLength(1);
      expect((await accept(first.token)).json()).toMatchObject({ code: 'INVITATION_REVOKED' });
      expect((await accept(second.token)).statusCode).toBe(200);
      expect((await members(acme)).find((member) => member.email === email)?.role).toBe('PartnerAdmin');
    });

    it('refuses with 409 USER_EXISTS an address that already has a user, in this tenant or another', async () => {
      const other = await createLoggedInTenant(test, 'Other');
      for (const email of [acme.email, other.email, other.email.toUpperCase()]) {
        const response = await invite(acme, email);
        expect(response.statusCode, email).toBe(409);
        expect(response.json()).toMatchObject({ code: 'USER_EXISTS' });
      }
    });

    it('refuses a short or common password on acceptance and leaves the link usable', async () => {
      const { token } = await invitedToken();
      for (const password of ['too short', 'Password1234']) {
        const response = await accept(token, password);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      }
      expect((await accept(token)).statusCode).toBe(200);
    });

    it('refuses an acceptance posted from another site (login CSRF)', async () => {
      const { token } = await invitedToken();
      const response = await accept(token, COLLEAGUE_PASSWORD, { origin: 'https://evil.example' });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'CSRF_REJECTED' });
    });

    it('validates the invitation body: bad address, unknown role, extra fields', async () => {
      for (const payload of [{ email: 'not-an-address', role: 'PartnerReadOnly' }, { email: 'a@example.com', role: 'Owner' }, { email: 'a@example.com', role: 'PartnerAdmin', extra: 1 }]) {
        const response = await call(acme.portal, 'POST', '/portal/team/invitations', payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      }
    });
  });

  describe('team screen API', () => {
    it('lists the users of the tenant with role, status and last sign-in', async () => {
      clock.advance(HOUR);
      const reader = await colleague(acme, 'PartnerReadOnly');
      const items = await members(acme);
      expect(items).toHaveLength(2);
      expect(items[0]).toMatchObject({ id: acme.adminUserId, role: 'PartnerAdmin', status: 'active', you: true });
      expect(items[1]).toMatchObject({ id: reader.userId, role: 'PartnerReadOnly', status: 'active', you: false, lastSignInAt: '2026-11-23T11:00:00.000Z' });
    });

    it('gives PartnerReadOnly 403 on every team route', async () => {
      const reader = await colleague(acme, 'PartnerReadOnly');
      for (const [method, path, payload] of [
        ['GET', '/portal/team/users', undefined],
        ['PATCH', `/portal/team/users/${acme.adminUserId}`, { status: 'disabled' }],
        ['GET', '/portal/team/invitations', undefined],
        ['POST', '/portal/team/invitations', { email: 'x@example.com', role: 'PartnerAdmin' }],
        ['DELETE', `/portal/team/invitations/${randomUUID()}`, undefined],
        ['DELETE', `/portal/users/${acme.adminUserId}/sessions`, undefined],
      ] as const) {
        const response = await call(reader.portal, method, path, payload);
        expect(response.statusCode, `${method} ${path}`).toBe(403);
        expect(response.json()).toMatchObject({ code: 'FORBIDDEN' });
      }
    });

    it('changes a role, and the new role applies to the sessions already open', async () => {
      const reader = await colleague(acme, 'PartnerReadOnly');
      expect((await call(reader.portal, 'GET', '/portal/team/users')).statusCode).toBe(403);
      const response = await update(acme, reader.userId, { role: 'PartnerAdmin' });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ id: reader.userId, role: 'PartnerAdmin', status: 'active', endedSessions: 0 });
      expect((await call(reader.portal, 'GET', '/portal/team/users')).statusCode).toBe(200);
      expect(await auditActions(acme.tenantId)).toContain('user.role_changed');
    });

    it('disabling ends the sessions at once and refuses sign-in; re-enabling lets the user sign in again', async () => {
      const reader = await colleague(acme, 'PartnerReadOnly');
      expect((await whoAmI(reader.portal)).statusCode).toBe(200);
      const disabled = await update(acme, reader.userId, { status: 'disabled' });
      expect(disabled.json()).toMatchObject({ status: 'disabled', endedSessions: 1 });
      expect((await whoAmI(reader.portal)).statusCode).toBe(401);
      const refused = await signIn(reader.email);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
      expect((await members(acme)).find((member) => member.id === reader.userId)?.status).toBe('disabled');
      expect((await update(acme, reader.userId, { status: 'active' })).statusCode).toBe(200);
      expect((await signIn(reader.email)).statusCode).toBe(200);
      expect(await auditActions(acme.tenantId)).toEqual(expect.arrayContaining(['user.disabled', 'user.enabled']));
    });

    it('refuses to disable or demote the last active admin with 409 LAST_ADMIN, themselves included', async () => {
      for (const payload of [{ status: 'disabled' }, { role: 'PartnerReadOnly' }]) {
        const response = await update(acme, acme.adminUserId, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(409);
        expect(response.json()).toMatchObject({ code: 'LAST_ADMIN' });
      }
      const second = await colleague(acme, 'PartnerAdmin');
      expect((await update(acme, second.userId, { status: 'disabled' })).statusCode).toBe(200);
      // A disabled admin is no admin: the first one is still the last.
      expect((await update(acme, acme.adminUserId, { role: 'PartnerReadOnly' })).json()).toMatchObject({ code: 'LAST_ADMIN' });
      expect((await update(acme, second.userId, { status: 'active' })).statusCode).toBe(200);
      expect((await update(acme, acme.adminUserId, { role: 'PartnerReadOnly' })).statusCode).toBe(200);
      // The second admin's earlier session ended when they were disabled.
      expect((await members({ ...acme, portal: await sessionOf(second.email) })).filter((member) => member.role === 'PartnerAdmin').map((member) => member.id)).toEqual([second.userId]);
      expect((await call(acme.portal, 'GET', '/portal/team/users')).statusCode).toBe(403);
    });

    it('ends all sessions of a user with the existing admin API', async () => {
      const reader = await colleague(acme, 'PartnerReadOnly');
      const response = await call(acme.portal, 'DELETE', `/portal/users/${reader.userId}/sessions`);
      expect(response.json()).toEqual({ endedSessions: 1 });
      expect((await whoAmI(reader.portal)).statusCode).toBe(401);
    });

    it('validates the change: nothing to change, unknown status, not a UUID', async () => {
      for (const [path, payload] of [
        [acme.adminUserId, {}],
        [acme.adminUserId, { status: 'deleted' }],
        ['not-a-uuid', { status: 'disabled' }],
      ] as const) {
        const response = await update(acme, path, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      }
    });
  });

  describe('tenant isolation', () => {
    it("an admin of another tenant can neither read nor change this tenant's users and invitations (404)", async () => {
      const other = await createLoggedInTenant(test, 'Other');
      const reader = await colleague(acme, 'PartnerReadOnly');
      const { token, id } = await invitedToken();
      expect((await members(other)).map((member) => member.id)).toEqual([other.adminUserId]);
      expect((await call(other.portal, 'GET', '/portal/team/invitations')).json()).toEqual({ items: [] });
      for (const [method, path, payload] of [
        ['PATCH', `/portal/team/users/${reader.userId}`, { status: 'disabled' }],
        ['PATCH', `/portal/team/users/${acme.adminUserId}`, { role: 'PartnerReadOnly' }],
        ['DELETE', `/portal/team/invitations/${id}`, undefined],
        ['DELETE', `/portal/users/${reader.userId}/sessions`, undefined],
      ] as const) {
        const response = await call(other.portal, method, path, payload);
        expect(response.statusCode, `${method} ${path}`).toBe(404);
      }
      expect((await whoAmI(reader.portal)).statusCode).toBe(200);
      expect((await lookup(token)).statusCode).toBe(200);
      expect(await auditActions(other.tenantId)).not.toEqual(expect.arrayContaining(['user.disabled', 'invitation.revoked']));
    });
  });

  itNeeding('DATABASE_URL')('two tabs accepting one invitation at once make one user; the other is told it was used (PostgreSQL)', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { email, token } = await invitedToken();
      const responses = await Promise.all([accept(token), accept(token)]);
      expect(responses.map((response) => response.statusCode).sort(), responses.map((response) => response.body).join('\n')).toEqual([200, 410]);
      expect(responses.find((response) => response.statusCode === 410)?.json()).toMatchObject({ code: 'INVITATION_USED' });
      expect((await members(acme)).filter((member) => member.email === email)).toHaveLength(1);
    }
  });

  /** Locking means something only with several connections: PGlite has one session and serialises anyway. */
  itNeeding('DATABASE_URL')('two admins demoting or disabling each other at once never leave the tenant without an admin (PostgreSQL)', async () => {
    const outcomes: number[][] = [];
    for (let round = 0; round < 10; round += 1) {
      const tenant = await createLoggedInTenant(test, `Race ${round}`);
      const second = await colleague(tenant, 'PartnerAdmin');
      const change = round % 2 === 0 ? { role: 'PartnerReadOnly' } : { status: 'disabled' };
      const responses = await Promise.all([update(tenant, second.userId, change), call(second.portal, 'PATCH', `/portal/team/users/${tenant.adminUserId}`, change)]);
      const codes = responses.map((response) => response.statusCode).sort();
      outcomes.push(codes);
      // Overlapping, the loser is refused by the lock (409); on a busy machine one may finish before the
      // other is authorised, which then finds its own role gone (403) or its session ended (401).
      expect(codes[0], responses.map((response) => response.body).join('\n')).toBe(200);
      expect([401, 403, 409], responses.map((response) => response.body).join('\n')).toContain(codes[1]);
      const admins = await test.db.select().from(auditLog).where(and(eq(auditLog.tenantId, tenant.tenantId), eq(auditLog.action, 'role' in change ? 'user.role_changed' : 'user.disabled')));
      expect(admins).toHaveLength(1);
      const remaining = (await members(responses[0].statusCode === 200 ? tenant : { ...tenant, portal: second.portal })).filter((member) => member.role === 'PartnerAdmin' && member.status === 'active');
      expect(remaining).toHaveLength(1);
    }
    expect(outcomes).toHaveLength(10);
  });
});
