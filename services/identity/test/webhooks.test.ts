import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, webhookEndpoints } from '../src/db/schema.js';
import { WEBHOOK_EVENT_TYPES } from '../src/domain/webhooks/webhook-events.js';
import { partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';


interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  isActive: boolean;
  createdAt: string;
}

describe('webhook endpoints API', () => {
  // The production policy: https only and public hosts (no WEBHOOK_ALLOW_PRIVATE_TARGETS).
  // hooks.example.com does not resolve offline, so registrations go through an IP literal.
  let test: TestApp;
  let acme: Partner;
  let globex: Partner;
  const PUBLIC = 'https://93.184.215.14/hooks';

  beforeAll(async () => {
    test = await buildTestApp();
    acme = await partnerWithToken(test, 'Acme');
    globex = await partnerWithToken(test, 'Globex');
  });
  afterAll(async () => {
    await test.close();
  });

  const register = (partner: Partner, payload: unknown) => test.app.inject({ method: 'POST', url: `${BASE}/webhooks`, headers: partner.headers, payload: payload as object });
  const call = (partner: Partner, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
    test.app.inject({ method, url: `${BASE}${path}`, headers: partner.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function created(partner: Partner, eventTypes: string[] = ['verification.approved']) {
    const response = await register(partner, { url: PUBLIC, eventTypes });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ endpoint: Endpoint; signingSecret: string }>();
  }

  it('registers an endpoint, shows the whsec_ secret once and stores it only sealed', async () => {
    const response = await register(acme, { url: PUBLIC, eventTypes: ['verification.approved', 'verification.rejected'] });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<{ endpoint: Endpoint; signingSecret: string }>();
    expect(body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(body.endpoint).toEqual({ id: expect.any(String), url: PUBLIC, eventTypes: ['verification.approved', 'verification.rejected'], isActive: true, createdAt: expect.any(String) });
    const [row] = await test.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, body.endpoint.id));
    expect(row!.signingSecretSealed).not.toContain(body.signingSecret.slice(6));
    const one = await call(acme, 'GET', `/webhooks/${body.endpoint.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(body.endpoint);
    expect(one.body).not.toContain('whsec_');
    const list = await call(acme, 'GET', '/webhooks');
    expect(list.json<Endpoint[]>().map((endpoint) => endpoint.id)).toContain(body.endpoint.id);
    const audit = await test.db.select().from(auditLog).where(eq(auditLog.target, `webhook:${body.endpoint.id}`));
    expect(audit.map((entry) => entry.action)).toEqual(['webhook.created']);
  });

  it.each([
    ['http:// without the development flag', 'http://93.184.215.14/hook', 'must use https://'],
    ['loopback IPv4', 'https://127.0.0.1/hook', 'loopback'],
    ['a private address', 'https://10.0.0.1/hook', 'private'],
    ['loopback IPv6', 'https://[::1]/hook', 'loopback'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data', 'link-local'],
    ['carrier-grade NAT', 'https://100.64.0.1/hook', 'carrier-grade NAT'],
    ['multicast', 'https://224.0.0.1/hook', 'multicast'],
    ['the unspecified address', 'https://0.0.0.0/hook', 'unspecified'],
    ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['localhost', 'https://localhost/hook', 'local'],
    ['a single-label host', 'https://vm/hook', 'local'],
    ['a host that does not resolve', 'https://no-such-host.invalid/hook', 'does not resolve'],
    ['credentials in the URL', 'https://user:pw@93.184.215.14/hook', 'credentials'],
    ['not a URL', 'hooks.example.com/x', 'not a valid absolute URL'],
    ['a URL over 500 characters', `https://93.184.215.14/${'a'.repeat(480)}`, 'at most 500 characters'],
  ])('refuses %s with 400 naming url', async (_what, url, reason) => {
    const response = await register(acme, { url, eventTypes: ['verification.approved'] });
    expect(response.statusCode, response.body).toBe(400);
    const problem = response.json<{ code: string; detail: string; errors: { path: string; message: string }[] }>();
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors[0]!.path).toBe('body.url');
    expect(problem.errors[0]!.message).toContain(reason);
  });

  it.each([
    ['no eventTypes', { url: PUBLIC }, 'eventTypes'],
    ['an empty list', { url: PUBLIC, eventTypes: [] }, 'at least one'],
    ['an unknown event type', { url: PUBLIC, eventTypes: ['verification.done'] }, 'must be one of'],
    ['the test event, which is not subscribable', { url: PUBLIC, eventTypes: ['webhook.test'] }, 'must be one of'],
    ['a duplicate', { url: PUBLIC, eventTypes: ['verification.approved', 'verification.approved'] }, 'twice'],
    ['an unknown field', { url: PUBLIC, eventTypes: ['verification.approved'], secret: 'x' }, 'secret'],
    ['no url', { eventTypes: ['verification.approved'] }, 'url'],
  ])('refuses %s with 400', async (_what, payload, mention) => {
    const response = await register(acme, payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json<{ code: string }>().code).toBe('VALIDATION_ERROR');
    expect(response.body).toContain(mention);
  });

  it('accepts every event type of the spec', async () => {
    const { endpoint } = await created(acme, [...WEBHOOK_EVENT_TYPES]);
    expect(endpoint.eventTypes).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('updates url and/or eventTypes with PUT, 200 with the endpoint; neither is 400', async () => {
    const { endpoint } = await created(acme);
    const types = await call(acme, 'PUT', `/webhooks/${endpoint.id}`, { eventTypes: ['verification.expired'] });
    expect(types.statusCode, types.body).toBe(200);
    expect(types.json()).toEqual({ ...endpoint, eventTypes: ['verification.expired'] });
    const url = await call(acme, 'PUT', `/webhooks/${endpoint.id}`, { url: 'https://93.184.215.15/new' });
    expect(url.json()).toEqual({ ...endpoint, url: 'https://93.184.215.15/new', eventTypes: ['verification.expired'] });
    expect((await call(acme, 'PUT', `/webhooks/${endpoint.id}`, {})).statusCode).toBe(400);
    expect((await call(acme, 'PUT', `/webhooks/${endpoint.id}`, { url: 'https://10.1.2.3/' })).statusCode).toBe(400);
    expect((await call(acme, 'PUT', `/webhooks/${endpoint.id}`, { eventTypes: [] })).statusCode).toBe(400);
    expect((await call(acme, 'GET', `/webhooks/${endpoint.id}`)).json<Endpoint>().url).toBe('https://93.184.215.15/new');
  });

  it('deactivates and activates with 204, idempotently', async () => {
    const { endpoint } = await created(acme);
    for (const [action, active] of [['deactivate', false], ['deactivate', false], ['activate', true], ['activate', true]] as const) {
      const response = await call(acme, 'POST', `/webhooks/${endpoint.id}/${action}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect((await call(acme, 'GET', `/webhooks/${endpoint.id}`)).json<Endpoint>().isActive).toBe(active);
    }
  });

  it('rotates the secret: 200 with a new whsec_ shown once', async () => {
    const { endpoint, signingSecret } = await created(acme);
    const response = await call(acme, 'POST', `/webhooks/${endpoint.id}/rotate-secret`);
    expect(response.statusCode).toBe(200);
    const { newSigningSecret } = response.json<{ newSigningSecret: string }>();
    expect(newSigningSecret).toMatch(/^whsec_/);
    expect(newSigningSecret).not.toBe(signingSecret);
  });

  it('deletes an endpoint with 204; it is gone', async () => {
    const { endpoint } = await created(acme);
    expect((await call(acme, 'DELETE', `/webhooks/${endpoint.id}`)).statusCode).toBe(204);
    expect((await call(acme, 'GET', `/webhooks/${endpoint.id}`)).statusCode).toBe(404);
    expect((await call(acme, 'DELETE', `/webhooks/${endpoint.id}`)).statusCode).toBe(404);
  });

  it("keeps tenants apart: another tenant's endpoint is 404 everywhere and missing from its list", async () => {
    const { endpoint } = await created(acme);
    const paths: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] = [
      ['GET', `/webhooks/${endpoint.id}`],
      ['PUT', `/webhooks/${endpoint.id}`, { eventTypes: ['verification.failed'] }],
      ['POST', `/webhooks/${endpoint.id}/deactivate`],
      ['POST', `/webhooks/${endpoint.id}/activate`],
      ['POST', `/webhooks/${endpoint.id}/rotate-secret`],
      ['GET', `/webhooks/${endpoint.id}/deliveries`],
      ['POST', `/webhooks/${endpoint.id}/test`],
      ['POST', `/webhooks/${endpoint.id}/recover`, { since: '2026-01-01T00:00:00Z' }],
      ['DELETE', `/webhooks/${endpoint.id}`],
    ];
    for (const [method, path, payload] of paths) {
      const response = await call(globex, method, path, payload);
      expect(response.statusCode, `${method} ${path}`).toBe(404);
      expect(response.json<{ code: string }>().code).toBe('NOT_FOUND');
    }
    expect((await call(globex, 'GET', '/webhooks')).json<Endpoint[]>().map((item) => item.id)).not.toContain(endpoint.id);
    expect((await call(acme, 'GET', `/webhooks/${endpoint.id}`)).json<Endpoint>().eventTypes).toEqual(['verification.approved']);
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expect((await call(acme, 'GET', '/webhooks/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const bad = await call(acme, 'GET', '/webhooks/not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('webhook endpoint id');
  });

  it('allows at most 20 endpoints per tenant (409 beyond); deleting one frees a place', async () => {
    const partner = await partnerWithToken(test, 'Initech');
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) ids.push((await created(partner)).endpoint.id);
    const refused = await register(partner, { url: PUBLIC, eventTypes: ['verification.approved'] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ detail: string }>().detail).toContain('at most 20');
    expect((await call(partner, 'DELETE', `/webhooks/${ids[0]}`)).statusCode).toBe(204);
    expect((await register(partner, { url: PUBLIC, eventTypes: ['verification.approved'] })).statusCode).toBe(201);
  });

  it('requires the webhooks scope and a token', async () => {
    const limited = await partnerWithToken(test, 'Scoped', 'verifications');
    const forbidden = await call(limited, 'GET', '/webhooks');
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.body).toContain('webhooks');
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/webhooks` })).statusCode).toBe(401);
  });

  it('pages deliveries with defaults 1/20, refuses a pageSize over 100 and unknown filters', async () => {
    const { endpoint } = await created(acme);
    const empty = await call(acme, 'GET', `/webhooks/${endpoint.id}/deliveries`);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ deliveries: [], page: 1, pageSize: 20, totalCount: 0, totalPages: 0 });
    expect((await call(acme, 'GET', `/webhooks/${endpoint.id}/deliveries?pageSize=101`)).statusCode).toBe(400);
    expect((await call(acme, 'GET', `/webhooks/${endpoint.id}/deliveries?succeeded=yes`)).statusCode).toBe(400);
    expect((await call(acme, 'GET', `/webhooks/${endpoint.id}/deliveries?eventType=verification.nope`)).statusCode).toBe(400);
    expect((await call(acme, 'GET', `/webhooks/${endpoint.id}/deliveries?status=failed`)).statusCode).toBe(400);
  });

  it('refuses a recover window that ends before it starts or is not ISO 8601', async () => {
    const { endpoint } = await created(acme);
    const backwards = await call(acme, 'POST', `/webhooks/${endpoint.id}/recover`, { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.body).toContain('since');
    expect((await call(acme, 'POST', `/webhooks/${endpoint.id}/recover`, { since: 'yesterday' })).statusCode).toBe(400);
    expect((await call(acme, 'POST', `/webhooks/${endpoint.id}/recover`, {})).statusCode).toBe(400);
  });

  it('sends the test ping and recover only to an active endpoint (409 when paused)', async () => {
    const { endpoint } = await created(acme);
    await call(acme, 'POST', `/webhooks/${endpoint.id}/deactivate`);
    for (const [path, payload] of [[`/webhooks/${endpoint.id}/test`, undefined], [`/webhooks/${endpoint.id}/recover`, { since: '2026-01-01T00:00:00Z' }]] as const) {
      const response = await call(acme, 'POST', path, payload);
      expect(response.statusCode, path).toBe(409);
      expect(response.json<{ detail: string }>().detail).toContain('activate');
    }
  });
});
