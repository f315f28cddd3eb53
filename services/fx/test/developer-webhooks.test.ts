import { createSecretBox } from '@svc/service-kit';
import { verifyFxWebhook } from '@svc/webhook-signing';
import { sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertDeliveryWorker } from '../src/workers/alert-delivery-worker.js';
import { postMid, startReceiver } from './alert-helpers.js';
import { useDeveloperApp } from './developer-helpers.js';

type Webhook = { id: string; isActive: boolean; consecutiveFailures: number; lastDeliveryStatusCode: number | null; signingSecret: string };
type Attempt = { attemptedUtc: string; kind: string; statusCode: number; latencyMs: number | null; error: string | null };

const LOOSE_LIMITS = { RATE_LIMIT_ANON_PER_MINUTE: '100000', RATE_LIMIT_ANON_PER_HOUR: '100000' };

describe("the developer dashboard's rate alerts", () => {
  const started = useDeveloperApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...LOOSE_LIMITS } });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  const inject = (options: InjectOptions) => started.app().app.inject(options);
  const hooks = (clientId: string) => `/api/v1/developer/clients/${clientId}/webhooks`;
  const fields = (url: string) => ({ webhookUrl: url, currency: 'USD', source: 'MARKET', alertType: 0, thresholdValue: 15000, label: 'dollar up' });

  it('creates, lists with delivery health, edits and deletes a webhook of the account’s client', async () => {
    const { cookie, keys } = await started.developer('crud');
    const created = await inject({ method: 'POST', url: hooks(keys.id), headers: { cookie }, payload: fields(receiver.url) });
    expect(created.statusCode, created.body).toBe(201);
    const hook = created.json<Webhook>();
    expect(hook).toMatchObject({ webhookUrl: receiver.url, currency: 'USD', isActive: true, consecutiveFailures: 0, lastDeliveryStatusCode: null, signingSecret: expect.any(String) });
    // The same webhook the key-authenticated client API sees: one domain behind both.
    const viaKey = await inject({ method: 'GET', url: '/api/v1/client/webhooks', headers: { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey } });
    expect(viaKey.json<{ id: string }[]>().map((webhook) => webhook.id)).toEqual([hook.id]);

    const listed = await inject({ method: 'GET', url: hooks(keys.id), headers: { cookie } });
    expect(listed.json()).toEqual({ webhooks: [expect.objectContaining({ id: hook.id, isActive: true, consecutiveFailures: 0, lastDeliveryStatusCode: null })] });
    expect(listed.body).not.toContain(hook.signingSecret);

    const edited = await inject({ method: 'PATCH', url: `${hooks(keys.id)}/${hook.id}`, headers: { cookie }, payload: { thresholdValue: 16000, label: 'renamed' } });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ thresholdValue: 16000, label: 'renamed' });
    // Free allows one webhook.
    const second = await inject({ method: 'POST', url: hooks(keys.id), headers: { cookie }, payload: fields(receiver.url) });
    expect(second.statusCode).toBe(403);
    expect(second.json().detail).toContain('allows 1 webhook');

    expect((await inject({ method: 'DELETE', url: `${hooks(keys.id)}/${hook.id}`, headers: { cookie } })).statusCode).toBe(204);
    expect((await inject({ method: 'GET', url: hooks(keys.id), headers: { cookie } })).json()).toEqual({ webhooks: [] });
    expect((await inject({ method: 'DELETE', url: `${hooks(keys.id)}/${hook.id}`, headers: { cookie } })).statusCode).toBe(404);
  });

  it('refuses bad input with 400 problems naming the field', async () => {
    const { cookie, keys } = await started.developer('invalid');
    const cases: [unknown, string][] = [
      [{ ...fields(receiver.url), currency: 'XXX' }, 'currency'],
      [{ ...fields(receiver.url), alertType: 7 }, 'alertType'],
      [{ ...fields(receiver.url), alertType: 3, thresholdValue: 100 }, 'thresholdValue'],
      [{ ...fields('ftp://example.com/x') }, 'webhookUrl'],
      [{ ...fields(receiver.url), extra: 1 }, 'extra'],
    ];
    for (const [payload, field] of cases) {
      const response = await inject({ method: 'POST', url: hooks(keys.id), headers: { cookie }, payload: payload as Record<string, unknown> });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body).toContain(field);
    }
    expect((await inject({ method: 'GET', url: hooks('not-a-uuid'), headers: { cookie } })).statusCode).toBe(400);
    expect((await inject({ method: 'POST', url: `${hooks(keys.id)}/nope/test`, headers: { cookie } })).statusCode).toBe(400);
  });

  it("answers 404 for another account's client and its webhooks on every route, 401 without a session, 403 cross-site", async () => {
    const mine = await started.developer('mine');
    const theirs = await started.developer('theirs');
    const hook = (await inject({ method: 'POST', url: hooks(theirs.keys.id), headers: { cookie: theirs.cookie }, payload: fields(receiver.url) })).json<Webhook>();
    const cookie = mine.cookie;
    const routes: (InjectOptions & { url: string })[] = [
      { method: 'GET', url: hooks(theirs.keys.id) },
      { method: 'POST', url: hooks(theirs.keys.id), payload: fields(receiver.url) },
      { method: 'PATCH', url: `${hooks(theirs.keys.id)}/${hook.id}`, payload: { label: 'mine now' } },
      { method: 'DELETE', url: `${hooks(theirs.keys.id)}/${hook.id}` },
      { method: 'GET', url: `${hooks(theirs.keys.id)}/${hook.id}/deliveries` },
      { method: 'POST', url: `${hooks(theirs.keys.id)}/${hook.id}/test` },
      { method: 'POST', url: `${hooks(theirs.keys.id)}/${hook.id}/enable` },
      // Their webhook under my client: the webhook must belong to the client named.
      { method: 'GET', url: `${hooks(mine.keys.id)}/${hook.id}/deliveries` },
      { method: 'POST', url: `${hooks(mine.keys.id)}/${hook.id}/test` },
    ];
    const sent = receiver.received.length;
    for (const route of routes) {
      const response = await inject({ ...route, headers: { cookie } });
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(404);
      expect((await inject({ ...route, headers: {} })).statusCode, `${route.method} ${route.url} without a session`).toBe(401);
    }
    expect(receiver.received.length).toBe(sent);
    const forged = await inject({ method: 'POST', url: `${hooks(theirs.keys.id)}/${hook.id}/test`, headers: { cookie: theirs.cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(forged.statusCode).toBe(403);
    expect((await inject({ method: 'GET', url: hooks(theirs.keys.id), headers: { cookie: theirs.cookie } })).json()).toMatchObject({ webhooks: [{ id: hook.id, label: 'dollar up' }] });
  });

  it('sends a signed test delivery, logs it, and leaves the health alone when it fails', async () => {
    const { cookie, keys } = await started.developer('test-send');
    const hook = (await inject({ method: 'POST', url: hooks(keys.id), headers: { cookie }, payload: fields(receiver.url) })).json<Webhook>();
    const before = receiver.received.length;
    const sent = await inject({ method: 'POST', url: `${hooks(keys.id)}/${hook.id}/test`, headers: { cookie } });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toEqual({ succeeded: true, statusCode: 200, latencyMs: expect.any(Number), error: null });
    expect(receiver.received.length).toBe(before + 1);
    const delivery = receiver.received.at(-1)!;
    expect(verifyFxWebhook({ secret: hook.signingSecret, headers: delivery.headers, rawBody: delivery.rawBody })).toMatchObject({ ok: true });
    expect(delivery.body).toMatchObject({ event: 'rate_alert.test', test: true, webhookId: hook.id, currency: 'USD' });

    receiver.respondWith(500);
    try {
      const failed = await inject({ method: 'POST', url: `${hooks(keys.id)}/${hook.id}/test`, headers: { cookie } });
      expect(failed.json()).toMatchObject({ succeeded: false, statusCode: 500, error: 'HTTP 500' });
    } finally {
      receiver.respondWith(200);
    }
    const log = (await inject({ method: 'GET', url: `${hooks(keys.id)}/${hook.id}/deliveries`, headers: { cookie } })).json<{ attempts: Attempt[] }>();
    expect(log.attempts).toEqual([
      { attemptedUtc: expect.any(String), kind: 'test', statusCode: 500, latencyMs: expect.any(Number), error: 'HTTP 500' },
      { attemptedUtc: expect.any(String), kind: 'test', statusCode: 200, latencyMs: expect.any(Number), error: null },
    ]);
    const [listed] = (await inject({ method: 'GET', url: hooks(keys.id), headers: { cookie } })).json<{ webhooks: Webhook[] }>().webhooks;
    expect(listed).toMatchObject({ isActive: true, consecutiveFailures: 0, lastDeliveryStatusCode: null });
  });

  it('keeps the last 50 attempts of a webhook', async () => {
    const { cookie, keys } = await started.developer('trim');
    const hook = (await inject({ method: 'POST', url: hooks(keys.id), headers: { cookie }, payload: fields(receiver.url) })).json<Webhook>();
    for (let i = 0; i < 53; i++) expect((await inject({ method: 'POST', url: `${hooks(keys.id)}/${hook.id}/test`, headers: { cookie } })).statusCode).toBe(200);
    const log = (await inject({ method: 'GET', url: `${hooks(keys.id)}/${hook.id}/deliveries`, headers: { cookie } })).json<{ attempts: Attempt[] }>();
    expect(log.attempts).toHaveLength(50);
    const [stored] = await started.app().dependencies.database.rows<{ n: number }>(sql`select count(*)::int as n from fx.alert_delivery_attempts where alert_id = ${hook.id}`);
    expect(stored?.n).toBe(50);
  });

  it('logs every attempt of failing firings, disables the webhook at the tenth, and re-enables it so the next crossing is delivered', async () => {
    const test = started.app();
    const worker = createAlertDeliveryWorker({ db: test.dependencies.database.db, box: createSecretBox(test.dependencies.secretsKey), policy: { allowPrivateTargets: true }, retryScheduleMs: [0, 1, 1], timeoutMs: 2000, mailer: test.app.fxMail.mailer });
    const drain = async () => {
      await expect
        .poll(async () => {
          await worker.runOnce();
          const [row] = await test.dependencies.database.rows<{ open: number }>(sql`select count(*)::int as open from fx.alert_deliveries where status in ('pending', 'in_flight')`);
          return row?.open;
        })
        .toBe(0);
    };
    try {
      const { email, cookie, keys } = await started.developer('disable');
      const hook = (await inject({ method: 'POST', url: hooks(keys.id), headers: { cookie }, payload: { ...fields(receiver.url), currency: 'EUR', thresholdValue: 100 } })).json<Webhook>();
      await postMid(test, 'MARKET', 'EUR', 90);
      receiver.respondWith(503);
      for (let firing = 0; firing < 10; firing++) {
        await postMid(test, 'MARKET', 'EUR', 110);
        await drain();
        await postMid(test, 'MARKET', 'EUR', 90);
      }
      const [disabled] = (await inject({ method: 'GET', url: hooks(keys.id), headers: { cookie } })).json<{ webhooks: Webhook[] }>().webhooks;
      expect(disabled).toMatchObject({ isActive: false, consecutiveFailures: 10, lastDeliveryStatusCode: 503 });
      const log = (await inject({ method: 'GET', url: `${hooks(keys.id)}/${hook.id}/deliveries`, headers: { cookie } })).json<{ attempts: Attempt[] }>();
      // Three attempts a firing (ALERT_RETRY_SCHEDULE_MS has three entries), every one logged.
      expect(log.attempts).toHaveLength(30);
      expect(log.attempts.every((attempt) => attempt.kind === 'alert' && attempt.statusCode === 503 && attempt.error === 'HTTP 503' && typeof attempt.latencyMs === 'number')).toBe(true);
      await started.mailTo(email, (subject) => subject === 'Your rate alert webhook was disabled');

      receiver.respondWith(200);
      const enabled = await inject({ method: 'POST', url: `${hooks(keys.id)}/${hook.id}/enable`, headers: { cookie } });
      expect(enabled.statusCode, enabled.body).toBe(200);
      expect(enabled.json()).toMatchObject({ isActive: true, consecutiveFailures: 0 });
      const before = receiver.received.length;
      await postMid(test, 'MARKET', 'EUR', 110);
      await drain();
      expect(receiver.received.length).toBe(before + 1);
      expect(receiver.received.at(-1)!.body).toMatchObject({ event: 'rate_alert', webhookId: hook.id });
      const [healthy] = (await inject({ method: 'GET', url: hooks(keys.id), headers: { cookie } })).json<{ webhooks: Webhook[] }>().webhooks;
      expect(healthy).toMatchObject({ isActive: true, consecutiveFailures: 0, lastDeliveryStatusCode: 200 });
      const latest = (await inject({ method: 'GET', url: `${hooks(keys.id)}/${hook.id}/deliveries`, headers: { cookie } })).json<{ attempts: Attempt[] }>().attempts[0];
      expect(latest).toMatchObject({ kind: 'alert', statusCode: 200, error: null });
    } finally {
      receiver.respondWith(200);
      await worker.close();
    }
  });
});

describe("the developer dashboard's rate alerts: the SSRF guard", () => {
  const started = useDeveloperApp({ env: LOOSE_LIMITS });

  it('refuses a webhook to a loopback or private address, as the client API does', async () => {
    const { cookie, keys } = await started.developer('ssrf');
    for (const url of ['https://127.0.0.1/hook', 'https://10.0.0.5/hook', 'http://example.com/hook']) {
      const response = await started.app().app.inject({ method: 'POST', url: `/api/v1/developer/clients/${keys.id}/webhooks`, headers: { cookie }, payload: { webhookUrl: url, currency: 'USD', source: 'MARKET', alertType: 0, thresholdValue: 1 } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().detail).toContain('webhookUrl');
    }
  });
});
