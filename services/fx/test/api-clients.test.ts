import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, manualClock, type TestApp } from './helpers.js';
import { createClient } from './alert-helpers.js';

const admin = { 'X-Admin-Token': ADMIN_TOKEN };

describe('API-key clients: keys, authentication, admin routes', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '100000', RATE_LIMIT_ANON_PER_HOUR: '100000' });
  });
  afterAll(() => test.close());

  const me = (headers: Record<string, string>) => test.app.inject({ method: 'GET', url: '/api/v1/client/me', headers });

  it('creates a client with pasteable keys and answers /client/me with the profile, webhookCount live', async () => {
    const client = await createClient(test, 'Starter');
    expect(client.publicKey).toMatch(/^svc_pub_[0-9a-f]{48}$/);
    expect(client.privateKey).toMatch(/^svc_prv_[0-9a-f]{64}$/);
    const response = await me(client.headers);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: client.id,
      name: 'client-Starter',
      publicKey: client.publicKey,
      isActive: true,
      createdUtc: expect.stringMatching(/Z$/),
      lastUsedUtc: expect.stringMatching(/Z$/),
      webhookCount: 0,
    });
    const rows = await test.dependencies.database.db.query.apiClients.findFirst({ where: (table, { eq }) => eq(table.id, client.id) });
    expect(rows?.privateKeyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(client.privateKey.slice(8));
  });

  it('answers every key failure with the same 401, never saying which half was wrong', async () => {
    const client = await createClient(test);
    const cases: Record<string, string>[] = [
      {},
      { 'X-Api-Key': client.publicKey },
      { 'X-Api-Secret': client.privateKey },
      { 'X-Api-Key': client.publicKey, 'X-Api-Secret': `svc_prv_${'0'.repeat(64)}` },
      { 'X-Api-Key': `svc_pub_${'0'.repeat(48)}`, 'X-Api-Secret': client.privateKey },
      { 'X-Api-Key': 'garbage', 'X-Api-Secret': 'garbage' },
    ];
    const bodies = new Set<string>();
    for (const headers of cases) {
      const response = await me(headers);
      expect(response.statusCode, JSON.stringify(Object.keys(headers))).toBe(401);
      bodies.add(response.json<{ detail: string }>().detail);
    }
    expect([...bodies]).toHaveLength(1);
  });

  it('401s an invalid pair on public endpoints instead of serving it anonymously', async () => {
    const client = await createClient(test);
    const wrong = await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers: { 'X-Api-Key': client.publicKey, 'X-Api-Secret': 'svc_prv_nope' } });
    expect(wrong.statusCode).toBe(401);
    const right = await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers: client.headers });
    expect(right.statusCode).toBe(200);
    expect(right.headers['x-quota-limit']).toBe('300');
    expect(right.headers['x-quota-remaining']).toBe('299');
  });

  it('rotates the private key (old one 401 at once), deactivates, and changes plans through the admin API', async () => {
    const client = await createClient(test);
    const rotated = await test.app.inject({ method: 'POST', url: `/api/v1/admin/clients/${client.id}/rotate-secret`, headers: admin });
    expect(rotated.statusCode).toBe(200);
    const { privateKey } = rotated.json<{ privateKey: string; publicKey: string }>();
    expect(rotated.json()).toMatchObject({ id: client.id, publicKey: client.publicKey });
    expect((await me(client.headers)).statusCode).toBe(401);
    const headers = { 'X-Api-Key': client.publicKey, 'X-Api-Secret': privateKey };
    expect((await me(headers)).statusCode).toBe(200);
    const plan = await test.app.inject({ method: 'PUT', url: `/api/v1/admin/clients/${client.id}/plan`, headers: admin, payload: { plan: 'Professional' } });
    expect(plan.json()).toMatchObject({ plan: 'Professional' });
    const data = await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers });
    expect(data.headers['x-quota-limit']).toBe('500000');
    const enterprise = await test.app.inject({ method: 'PUT', url: `/api/v1/admin/clients/${client.id}/plan`, headers: admin, payload: { plan: 'Enterprise' } });
    expect(enterprise.statusCode).toBe(200);
    const unlimited = await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers });
    expect(unlimited.headers['x-quota-limit']).toBeUndefined();
    const deactivated = await test.app.inject({ method: 'POST', url: `/api/v1/admin/clients/${client.id}/deactivate`, headers: admin });
    expect(deactivated.json()).toMatchObject({ isActive: false });
    expect((await me(headers)).statusCode).toBe(401);
  });

  it('validates admin input: token, plan, name, unknown ids', async () => {
    expect((await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', payload: { name: 'x', plan: 'Free' } })).statusCode).toBe(401);
    const badPlan = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: admin, payload: { name: 'x', plan: 'Gold' } });
    expect(badPlan.statusCode).toBe(400);
    expect((await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: admin, payload: { name: '', plan: 'Free' } })).statusCode).toBe(400);
    const unknown = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients/00000000-0000-4000-8000-000000000000/deactivate', headers: admin });
    expect(unknown.statusCode).toBe(404);
    expect((await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients/nope/rotate-secret', headers: admin })).statusCode).toBe(400);
  });

  it('keeps an optional contact address: set on create, changed and removed by PUT …/email, refused when malformed', async () => {
    const created = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: admin, payload: { name: 'mailed', plan: 'Free', email: ' ops@acme.example ' } });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ id: string }>().id;
    const setEmail = (email: string | null) => test.app.inject({ method: 'PUT', url: `/api/v1/admin/clients/${id}/email`, headers: admin, payload: { email } });
    const changed = await setEmail('alerts@acme.example');
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ id, email: 'alerts@acme.example' });
    expect((await setEmail(null)).json()).toMatchObject({ id, email: null });
    const plan = await test.app.inject({ method: 'PUT', url: `/api/v1/admin/clients/${id}/plan`, headers: admin, payload: { plan: 'Starter' } });
    expect(plan.json()).toMatchObject({ email: null });
    const bad = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: admin, payload: { name: 'x', plan: 'Free', email: 'not-an-address' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await setEmail('nope')).statusCode).toBe(400);
    expect((await test.app.inject({ method: 'PUT', url: '/api/v1/admin/clients/00000000-0000-4000-8000-000000000000/email', headers: admin, payload: { email: 'a@b.example' } })).statusCode).toBe(404);
    expect((await test.app.inject({ method: 'PUT', url: `/api/v1/admin/clients/${id}/email`, payload: { email: 'a@b.example' } })).statusCode).toBe(401);
  });
});

describe('keyed limits and monthly quota', () => {
  it('gives a Free key 300 calls a month: the 301st is 429 with the quota message, and keyed calls do not count against the IP', async () => {
    const clock = manualClock('2026-11-30T20:00:00.000Z');
    const test = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '2', RATE_LIMIT_ANON_PER_HOUR: '1000' }, { clock: clock.now });
    try {
      const created = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: admin, payload: { name: 'free', plan: 'Free' } });
      const keys = created.json<{ publicKey: string; privateKey: string }>();
      const headers = { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey };
      for (let call = 1; call <= 300; call++) {
        const response = await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers });
        expect(response.statusCode, `call ${call}`).toBe(200);
        if (call === 300) expect(response.headers['x-quota-remaining']).toBe('0');
        clock.advance(1_500); // 40 a minute: under the per-key minute limit
      }
      const refused = await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ error: expect.stringMatching(/^Monthly quota exhausted\. It resets at 2026-12-01T00:00:00\.000Z/), retryAfter: expect.any(Number) });
      expect(Number(refused.headers['retry-after'])).toBe(refused.json<{ retryAfter: number }>().retryAfter);
      // /client/* spends the minute budget but not the data quota.
      expect((await test.app.inject({ method: 'GET', url: '/api/v1/client/me', headers })).statusCode).toBe(200);
      // 300 keyed calls from this IP left the anonymous budget (2 a minute) untouched.
      expect((await test.app.inject({ method: 'GET', url: '/api/v1/pricing' })).statusCode).toBe(200);
      expect((await test.app.inject({ method: 'GET', url: '/api/v1/pricing' })).statusCode).toBe(200);
      expect((await test.app.inject({ method: 'GET', url: '/api/v1/pricing' })).statusCode).toBe(429);
      clock.set('2026-12-01T00:00:01.000Z');
      expect((await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers })).statusCode).toBe(200);
    } finally {
      await test.close();
    }
  });

  it('limits a key to 60 calls a minute whatever its plan', async () => {
    const clock = manualClock('2026-11-23T10:00:00.000Z');
    const test = await buildTestApp({}, { clock: clock.now });
    try {
      const created = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: admin, payload: { name: 'ent', plan: 'Enterprise' } });
      const keys = created.json<{ publicKey: string; privateKey: string }>();
      const headers = { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey };
      for (let call = 0; call < 60; call++) expect((await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers })).statusCode).toBe(200);
      const refused = await test.app.inject({ method: 'GET', url: '/api/v1/pricing', headers });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: expect.stringMatching(/^Rate limit exceeded/) });
    } finally {
      await test.close();
    }
  });
});
