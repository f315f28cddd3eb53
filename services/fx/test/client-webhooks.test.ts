import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlertTestApp, createClient, type AlertTestApp } from './alert-helpers.js';
import { buildTestApp, type TestApp } from './helpers.js';

const validBody = { webhookUrl: 'https://hooks.example.com/fx', currency: 'USD', source: 'MARKET', alertType: 0, thresholdValue: 120 };

describe('client webhooks: CRUD, allowance, isolation', () => {
  let test: AlertTestApp;
  beforeAll(async () => {
    test = await buildAlertTestApp();
  });
  afterAll(() => test.close());

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
    test.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  it('creates (201, secret once), lists without secrets, updates a subset, deletes (204)', async () => {
    const client = await createClient(test, 'Starter');
    const created = await call('POST', '/api/v1/client/webhooks', client.headers, { ...validBody, label: 'usd up' });
    expect(created.statusCode).toBe(201);
    const webhook = created.json<Record<string, unknown> & { id: string }>();
    expect(webhook).toEqual({
      id: expect.any(String),
      webhookUrl: 'https://hooks.example.com/fx',
      currency: 'USD',
      source: 'MARKET',
      alertType: 0,
      thresholdValue: 120,
      label: 'usd up',
      isActive: true,
      lastDeliveryStatusCode: null,
      consecutiveFailures: 0,
      lastTriggeredUtc: null,
      createdUtc: expect.stringMatching(/Z$/),
      signingSecret: expect.stringMatching(/^whsec_/),
    });
    const listed = await call('GET', '/api/v1/client/webhooks', client.headers);
    expect(listed.json()).toEqual([{ ...webhook, signingSecret: undefined }].map(({ signingSecret: _secret, ...rest }) => rest));
    expect(listed.body).not.toContain('whsec_');
    const sealed = await test.dependencies.database.db.query.rateAlerts.findFirst({ where: (table, { eq }) => eq(table.id, webhook.id) });
    expect(sealed?.signingSecretSealed).not.toContain(String(webhook.signingSecret).slice(6));
    const updated = await call('PUT', `/api/v1/client/webhooks/${webhook.id}`, client.headers, { thresholdValue: 125.5, label: null });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ thresholdValue: 125.5, label: null, webhookUrl: 'https://hooks.example.com/fx' });
    expect((await call('GET', '/api/v1/client/me', client.headers)).json()).toMatchObject({ webhookCount: 1 });
    expect((await call('DELETE', `/api/v1/client/webhooks/${webhook.id}`, client.headers)).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/client/webhooks', client.headers)).json()).toEqual([]);
    expect((await call('DELETE', `/api/v1/client/webhooks/${webhook.id}`, client.headers)).statusCode).toBe(404);
  });

  it('enforces the plan allowance with a 403 naming the plan and the limit', async () => {
    const free = await createClient(test, 'Free');
    expect((await call('POST', '/api/v1/client/webhooks', free.headers, validBody)).statusCode).toBe(201);
    const over = await call('POST', '/api/v1/client/webhooks', free.headers, validBody);
    expect(over.statusCode).toBe(403);
    expect(over.json()).toMatchObject({ detail: expect.stringMatching(/Free plan allows 1 webhook/) });
    const starter = await createClient(test, 'Starter');
    const statuses = [];
    for (let index = 0; index < 6; index++) statuses.push((await call('POST', '/api/v1/client/webhooks', starter.headers, validBody)).statusCode);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 403]);
  });

  it("keeps clients apart: another client's webhook is 404 to read-modify-delete", async () => {
    const owner = await createClient(test, 'Starter');
    const other = await createClient(test, 'Starter');
    const { id } = (await call('POST', '/api/v1/client/webhooks', owner.headers, validBody)).json<{ id: string }>();
    expect((await call('PUT', `/api/v1/client/webhooks/${id}`, other.headers, { label: 'mine now' })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/client/webhooks/${id}`, other.headers)).statusCode).toBe(404);
    expect((await call('POST', `/api/v1/client/webhooks/${id}/rotate-secret`, other.headers)).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/client/webhooks', other.headers)).json()).toEqual([]);
    expect((await call('GET', '/api/v1/client/webhooks', owner.headers)).json<{ id: string }[]>().map((webhook) => webhook.id)).toEqual([id]);
  });

  it.each([
    ['missing webhookUrl', { ...validBody, webhookUrl: undefined }],
    ['unknown currency', { ...validBody, currency: 'XYZ' }],
    ['bad source', { ...validBody, source: 'BLACK' }],
    ['alertType 4', { ...validBody, alertType: 4 }],
    ['alertType 1.5', { ...validBody, alertType: 1.5 }],
    ['threshold 0', { ...validBody, thresholdValue: 0 }],
    ['percent over 1000', { ...validBody, alertType: 2, thresholdValue: 1001 }],
    ['decrease of 100%', { ...validBody, alertType: 3, thresholdValue: 100 }],
    ['label over 100', { ...validBody, label: 'x'.repeat(101) }],
    ['unknown field', { ...validBody, secret: 'x' }],
    ['url over 500', { ...validBody, webhookUrl: `https://hooks.example.com/${'a'.repeat(480)}` }],
    ['credentials in url', { ...validBody, webhookUrl: 'https://user:pass@hooks.example.com/' }],
  ])('rejects %s with 400', async (_name, body) => {
    const client = await createClient(test, 'Enterprise');
    const response = await call('POST', '/api/v1/client/webhooks', client.headers, body);
    expect(response.statusCode, response.body).toBe(400);
  });

  it('rejects PUT fields that make the alert invalid, and needs keys', async () => {
    const client = await createClient(test, 'Starter');
    const { id } = (await call('POST', '/api/v1/client/webhooks', client.headers, validBody)).json<{ id: string }>();
    expect((await call('PUT', `/api/v1/client/webhooks/${id}`, client.headers, { alertType: 3 })).statusCode).toBe(400);
    expect((await call('PUT', `/api/v1/client/webhooks/${id}`, client.headers, { isActive: 'yes' })).statusCode).toBe(400);
    expect((await call('PUT', '/api/v1/client/webhooks/not-a-uuid', client.headers, { label: 'x' })).statusCode).toBe(400);
    expect((await call('GET', '/api/v1/client/webhooks', {})).statusCode).toBe(401);
  });
});

describe('webhook targets without WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '100000' });
  });
  afterAll(() => test.close());

  it.each([
    ['http://', 'http://hooks.example.com/fx', /https/],
    ['loopback', 'https://127.0.0.1/fx', /public/],
    ['private', 'https://10.0.0.5/fx', /public/],
    ['link-local metadata', 'https://169.254.169.254/latest', /public/],
    ['localhost', 'https://localhost/fx', /./],
  ])('refuses a %s target with 400', async (_name, webhookUrl, detail) => {
    const client = await createClient(test, 'Enterprise');
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/client/webhooks', headers: client.headers, payload: { ...validBody, webhookUrl } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ detail: expect.stringMatching(detail) });
  });
});
