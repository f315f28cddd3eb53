import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLog } from '../src/db/schema.js';
import { createTenant, setTenantStatus } from '../src/domain/tenants/tenants.js';
import { BASE, buildTestApp, manualClock, PASSWORD, type TestApp } from './helpers.js';

describe('partner portal login', () => {
  let test: TestApp;
  let clock: ReturnType<typeof manualClock>;
  let email: string;
  let tenantId: string;

  beforeEach(async () => {
    clock = manualClock(new Date('2026-11-23T10:00:00Z'));
    test = await buildTestApp({}, { clock: clock.now });
    email = `admin-${randomUUID()}@example.com`;
    ({ tenantId } = await test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail: email, adminPassword: PASSWORD }, clock.now())));
  });
  afterEach(() => test.close());

  const login = (payload: unknown, headers: Record<string, string> = {}) => test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: payload as object, headers });

  it('returns a svc_ps_ session token valid 8 hours, and the same token as a strict HttpOnly Secure cookie', async () => {
    const response = await login({ email: email.toUpperCase(), password: PASSWORD });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ sessionToken: string; expiresAt: string }>();
    expect(body.sessionToken).toMatch(/^svc_ps_[0-9a-f]{64}$/);
    expect(body.expiresAt).toBe('2026-11-23T18:00:00.000Z');
    expect(response.headers['cache-control']).toBe('no-store');
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toContain(`svc_portal_session=${body.sessionToken}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=28800/);
  });

  it('stores the session only as a hash', async () => {
    const { sessionToken } = (await login({ email, password: PASSWORD })).json<{ sessionToken: string }>();
    const rows = await test.dependencies.database.rows<{ token_hash: string }>(
      (await import('drizzle-orm')).sql`select token_hash from identity.portal_sessions`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).not.toContain(sessionToken.slice(7));
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts the cookie or the Bearer header on portal routes, and logout ends the session', async () => {
    const { sessionToken } = (await login({ email, password: PASSWORD })).json<{ sessionToken: string }>();
    const viaCookie = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, cookies: { svc_portal_session: sessionToken } });
    expect(viaCookie.statusCode).toBe(200);
    const logout = await test.app.inject({ method: 'POST', url: `${BASE}/portal/logout`, headers: { authorization: `Bearer ${sessionToken}` } });
    expect(logout.statusCode).toBe(204);
    expect(String(logout.headers['set-cookie'])).toMatch(/svc_portal_session=;/);
    const after = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: { authorization: `Bearer ${sessionToken}` } });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('expires the session after 8 hours', async () => {
    const { sessionToken } = (await login({ email, password: PASSWORD })).json<{ sessionToken: string }>();
    clock.advance(8 * 3600_000);
    const response = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: { authorization: `Bearer ${sessionToken}` } });
    expect(response.statusCode).toBe(401);
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const wrongPassword = await login({ email, password: 'not the password' });
    const unknownEmail = await login({ email: 'nobody@example.com', password: 'not the password' });
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    const strip = (body: Record<string, unknown>) => ({ ...body, correlationId: undefined });
    expect(strip(wrongPassword.json())).toEqual(strip(unknownEmail.json()));
    expect(wrongPassword.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'The email or password is incorrect.' });
  });

  it('locks an account after 5 failures within 15 minutes, for 15 minutes, even for the right password', async () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      clock.advance(60_000);
      expect((await login({ email, password: `wrong-${attempt}` })).statusCode).toBe(401);
    }
    const locked = await login({ email, password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'ACCOUNT_LOCKED', status: 429 });
    expect(locked.headers['retry-after']).toBe('900');
    clock.advance(14 * 60_000);
    const stillLocked = await login({ email, password: PASSWORD });
    expect(stillLocked.statusCode).toBe(429);
    expect(stillLocked.headers['retry-after']).toBe('60');
    clock.advance(60_000);
    expect((await login({ email, password: PASSWORD })).statusCode).toBe(200);
    const actions = (await test.db.select({ action: auditLog.action }).from(auditLog)).map((row) => row.action);
    expect(actions.filter((action) => action === 'login.failed')).toHaveLength(5);
    expect(actions).toContain('login.locked');
    expect(actions).toContain('login.succeeded');
  });

  it('does not lock for failures spread over more than 15 minutes', async () => {
    for (let attempt = 1; attempt <= 6; attempt++) {
      expect((await login({ email, password: 'wrong' })).statusCode).toBe(401);
      clock.advance(4 * 60_000);
    }
    expect((await login({ email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('locks an unknown email exactly like a known one (no enumeration through the lockout)', async () => {
    for (let attempt = 0; attempt < 5; attempt++) await login({ email: 'ghost@example.com', password: 'wrong' });
    expect((await login({ email: 'ghost@example.com', password: 'wrong' })).json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
  });

  it('refuses the users of a disabled tenant with 403 ACCOUNT_DISABLED, sessions included, and lets them back when enabled', async () => {
    const { sessionToken } = (await login({ email, password: PASSWORD })).json<{ sessionToken: string }>();
    await test.announced(() => test.db.transaction((tx) => setTenantStatus(tx, tenantId, 'disabled', clock.now())));
    const refused = await login({ email, password: PASSWORD });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
    const session = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: { authorization: `Bearer ${sessionToken}` } });
    expect(session.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
    await test.announced(() => test.db.transaction((tx) => setTenantStatus(tx, tenantId, 'active', clock.now())));
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: { authorization: `Bearer ${sessionToken}` } })).statusCode).toBe(200);
  });

  it('rejects a malformed body with 400 VALIDATION_ERROR', async () => {
    for (const payload of [{}, { email: 'not-an-email', password: 'x' }, { email, password: '' }, { email, password: PASSWORD, extra: 1 }]) {
      const response = await login(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it('records the correlation id of the request in the audit log', async () => {
    const response = await login({ email, password: PASSWORD }, { 'x-correlation-id': 'login-trace-1' });
    expect(response.headers['x-correlation-id']).toBe('login-trace-1');
    const rows = await test.db.select().from(auditLog);
    expect(rows.find((row) => row.action === 'login.succeeded')).toMatchObject({ correlationId: 'login-trace-1', tenantId });
  });

  it('logout without a session is 401', async () => {
    const response = await test.app.inject({ method: 'POST', url: `${BASE}/portal/logout` });
    expect(response.statusCode).toBe(401);
  });
});
