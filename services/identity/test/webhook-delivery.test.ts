import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookEndpoints } from '../src/db/schema.js';
import { WEBHOOK_EVENT_TYPES } from '../src/domain/webhooks/webhook-events.js';
import type { WebhookDeliveryPage } from '@svc/identity-client/types';
import { createSecretBox } from '@svc/service-kit';
import { createCase, partnerWithToken, submittedCase, type Partner } from './case-helpers.js';
import { startSignedReceiver, type SignedReceiver } from './fixtures/signed-receiver.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

// Development policy (loopback http receiver) and a retry schedule in milliseconds.
const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,20,20,20,20', WEBHOOK_TIMEOUT_MS: '400' };

describe('webhook delivery to a real receiver', () => {
  let test: TestApp;
  let receiver: SignedReceiver;
  let partner: Partner;
  let other: Partner;
  let path = 0;

  beforeAll(async () => {
    test = await buildTestApp(ENV);
    receiver = await startSignedReceiver();
    partner = await partnerWithToken(test, 'Acme', undefined, { sandbox: true });
    other = await partnerWithToken(test, 'Globex', undefined, { sandbox: true });
  });
  afterAll(async () => {
    await test.close();
    await receiver.close();
  });

  const call = (who: Partner, method: 'GET' | 'POST', url: string, payload?: object) =>
    test.app.inject({ method, url: `${BASE}${url}`, headers: who.headers, ...(payload ? { payload } : {}) });

  /** A fresh receiver path registered as an endpoint of `who`, its secret trusted by the receiver. */
  async function endpoint(who: Partner, eventTypes: readonly string[] = WEBHOOK_EVENT_TYPES) {
    const hookPath = `/hook-${++path}`;
    const response = await call(who, 'POST', '/webhooks', { url: receiver.url(hookPath), eventTypes });
    expect(response.statusCode, response.body).toBe(201);
    const { endpoint: created, signingSecret } = response.json<{ endpoint: { id: string }; signingSecret: string }>();
    receiver.trust(hookPath, signingSecret);
    return { id: created.id, path: hookPath, signingSecret };
  }

  /** Runs the worker until nothing is due any more (retries are milliseconds apart). */
  async function deliverAll(timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const claimed = await test.worker.deliverWebhooks();
      if (claimed > 0) continue;
      const [open] = await test.db
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.subscriptionId))
        .where(and(sql`${webhookDeliveries.status} in ('pending', 'in_flight')`, eq(webhookEndpoints.isActive, true)));
      if ((open?.n ?? 0) === 0) return;
      if (Date.now() > deadline) throw new Error('deliveries still open');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  const deliveries = async (id: string, query = '') => (await call(partner, 'GET', `/webhooks/${id}/deliveries${query}`)).json<WebhookDeliveryPage>();

  // Each test registers its own endpoints; those of earlier tests go (with their deliveries), so
  // their answers (a 429 with a long Retry-After, a 503) cannot leak into later tests, and the
  // tenants stay under the 20-endpoint limit.
  beforeEach(async () => {
    await test.db.delete(webhookDeliveries);
    await test.db.delete(webhookEndpoints);
  });

  it('sends each event of a sandbox case, signed and exact, only to subscribed active endpoints of its tenant', async () => {
    const all = await endpoint(partner);
    const approvedOnly = await endpoint(partner, ['verification.approved']);
    const rejectedOnly = await endpoint(partner, ['verification.rejected']);
    const paused = await endpoint(partner);
    await call(partner, 'POST', `/webhooks/${paused.id}/deactivate`);
    const otherTenant = await endpoint(other);

    const { caseId } = await submittedCase(test, partner, 'order-7#approve');
    await test.worker.runJobs();
    await deliverAll();

    // Sent concurrently, so they may arrive in any order: receivers order by timestamp.
    const received = receiver.at(all.path).sort((a, b) => a.body.timestamp.localeCompare(b.body.timestamp));
    expect(received.map((receipt) => receipt.body.eventType)).toEqual([
      'verification.session_issued',
      'verification.capture_started',
      'verification.evidence_uploaded',
      'verification.automated_checks_running',
      'verification.approved',
    ]);
    expect(received.map((receipt) => receipt.body.data.status)).toEqual(['SessionIssued', 'CaptureStarted', 'EvidenceUploaded', 'AutomatedChecksRunning', 'Approved']);
    const records = (await deliveries(all.id)).deliveries;
    for (const receipt of received) {
      expect(receipt.verification).toMatchObject({ ok: true });
      expect(receipt.standard).toEqual({ ok: true });
      expect(receipt.headers['webhook-id']).toBe(receipt.headers['x-service-delivery-id']);
      expect(receipt.headers['webhook-timestamp']).toBe(receipt.headers['x-service-timestamp']);
      expect(Object.keys(receipt.body)).toEqual(['eventType', 'eventId', 'timestamp', 'apiVersion', 'tenantId', 'sandbox', 'data']);
      expect(receipt.body).toMatchObject({ eventId: expect.stringMatching(/^evt_[0-9a-f-]{36}$/), apiVersion: 'v1', tenantId: partner.tenantId, sandbox: true });
      expect(Object.keys(receipt.body.data)).toEqual(['caseId', 'externalReference', 'status', 'documentType', 'compositeRiskScore', 'decisionReason', 'completedAt']);
      expect(receipt.body.data).toMatchObject({ caseId, externalReference: 'order-7#approve', documentType: 'SyrianPassport' });
      expect(receipt.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(receipt.headers['x-service-event']).toBe(receipt.body.eventType);
      expect(receipt.headers['content-type']).toBe('application/json');
      expect(receipt.headers['user-agent']).toContain('identity');
      expect(receipt.headers['x-service-delivery-attempt']).toBe('1');
      expect(records.map((record) => record.id)).toContain(receipt.headers['x-service-delivery-id']);
    }
    const approved = received.at(-1)!.body.data;
    expect(approved.completedAt).toEqual(expect.any(String));
    expect(approved.compositeRiskScore).toEqual(expect.any(Number));

    expect(receiver.at(approvedOnly.path).map((receipt) => receipt.body.eventType)).toEqual(['verification.approved']);
    expect(receiver.at(rejectedOnly.path)).toEqual([]);
    expect(receiver.at(paused.path)).toEqual([]);
    expect(receiver.at(otherTenant.path)).toEqual([]);
    // Nothing was even queued for them.
    for (const id of [rejectedOnly.id, paused.id, otherTenant.id]) expect(await test.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, id))).toEqual([]);
    expect(records.every((record) => record.succeeded && record.httpStatus === 204 && record.attemptCount === 1 && record.caseId === caseId)).toBe(true);
  });

  it('delivers each of the ten event types exactly to the endpoints subscribed to it', async () => {
    const byType = new Map<string, { id: string; path: string }>();
    for (const type of WEBHOOK_EVENT_TYPES) byType.set(type, await endpoint(partner, [type]));
    const caseIds: string[] = [];
    for (const outcome of ['approve', 'reject', 'review', 'fail', 'expire']) caseIds.push((await submittedCase(test, partner, `order#${outcome}`)).caseId);
    await test.worker.runJobs();
    const cancelled = (await createCase(test, partner)).json<{ caseId: string }>().caseId;
    const cancel = await call(partner, 'POST', `/verifications/${cancelled}/cancel`, { reason: 'customer left' });
    expect(cancel.statusCode).toBe(204);
    await deliverAll();
    const received = (type: string) => receiver.at(byType.get(type)!.path);
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect(received(type).every((receipt) => receipt.body.eventType === type && receipt.verification.ok && receipt.standard.ok), type).toBe(true);
    }
    expect(received('verification.session_issued')).toHaveLength(6);
    expect(received('verification.capture_started')).toHaveLength(5);
    expect(received('verification.evidence_uploaded')).toHaveLength(5);
    for (const [type, count] of [['verification.approved', 1], ['verification.rejected', 1], ['verification.pending_manual_review', 1], ['verification.failed', 1], ['verification.expired', 1], ['verification.cancelled', 1]] as const) {
      expect(received(type), type).toHaveLength(count);
    }
    expect(received('verification.cancelled')[0]!.body.data).toMatchObject({ caseId: cancelled, status: 'Cancelled' });
    expect(received('verification.rejected')[0]!.body.data).toMatchObject({ caseId: caseIds[1], status: 'Rejected' });
  });

  it('retries a failing receiver with a fresh signature and the same delivery id, then succeeds', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    let calls = 0;
    receiver.answer(hook.path, () => ({ status: ++calls <= 2 ? 500 : 200 }));
    await createCase(test, partner);
    await deliverAll();
    const received = receiver.at(hook.path);
    expect(received.map((receipt) => receipt.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(received.map((receipt) => receipt.headers['x-service-delivery-id'])).size).toBe(1);
    expect(received.map((receipt) => receipt.headers['webhook-id'])).toEqual(received.map((receipt) => receipt.headers['x-service-delivery-id']));
    expect(received.every((receipt) => receipt.standard.ok)).toBe(true);
    expect(new Set(received.map((receipt) => receipt.body.eventId)).size).toBe(1);
    expect(received.every((receipt) => receipt.verification.ok)).toBe(true);
    const [record] = (await deliveries(hook.id)).deliveries;
    expect(record).toMatchObject({ succeeded: true, status: 'succeeded', attemptCount: 3, httpStatus: 200, nextAttemptAt: null, lastError: null });
  });

  it('gives up after 5 failed attempts and keeps the last status', async () => {
    // Attempts by outcome at /metrics (the app's registry), as deltas: the app is shared by the file's tests.
    const attempts = async (outcome: string) => Number(new RegExp(`^queue_attempts_total\\{queue="webhook_deliveries",outcome="${outcome}",service="identity"\\} (\\d+)$`, 'm').exec(await test.app.metrics.scrape())?.[1]);
    const before = { retrying: await attempts('retrying'), gaveUp: await attempts('gave_up') };
    const hook = await endpoint(partner, ['verification.session_issued']);
    receiver.answer(hook.path, () => ({ status: 503 }));
    await createCase(test, partner);
    await deliverAll();
    expect((await attempts('retrying')) - before.retrying).toBeGreaterThanOrEqual(4);
    expect((await attempts('gave_up')) - before.gaveUp).toBeGreaterThanOrEqual(1);
    expect(receiver.at(hook.path)).toHaveLength(5);
    const [record] = (await deliveries(hook.id)).deliveries;
    expect(record).toMatchObject({ succeeded: false, status: 'failed', attemptCount: 5, httpStatus: 503, nextAttemptAt: null });
    expect((await deliveries(hook.id, '?succeeded=false')).totalCount).toBe(1);
    expect((await deliveries(hook.id, '?succeeded=true')).totalCount).toBe(0);
  });

  it('counts a receiver slower than WEBHOOK_TIMEOUT_MS as a failure with status 0', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    receiver.answer(hook.path, () => ({ status: 204, delayMs: 1500 }));
    await createCase(test, partner);
    await test.worker.deliverWebhooks();
    const [record] = (await deliveries(hook.id)).deliveries;
    expect(record).toMatchObject({ succeeded: false, status: 'pending', attemptCount: 1, httpStatus: 0, lastError: 'timed out after 400 ms' });
    receiver.answer(hook.path, () => ({ status: 204 }));
    await deliverAll();
  });

  it('honours a longer Retry-After on 429', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    receiver.answer(hook.path, () => ({ status: 429, headers: { 'retry-after': '120' } }));
    await createCase(test, partner);
    await test.worker.deliverWebhooks();
    const [record] = (await deliveries(hook.id)).deliveries;
    expect(record!.httpStatus).toBe(429);
    const waitMs = Date.parse(record!.nextAttemptAt!) - Date.parse(record!.lastAttemptAt!);
    expect(waitMs).toBeGreaterThanOrEqual(120_000);
    expect(waitMs).toBeLessThan(121_000);
    await test.db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, record!.id));
  });

  it('deactivates an endpoint that answers 410 Gone, after one attempt, and queues nothing more for it', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    receiver.answer(hook.path, () => ({ status: 410 }));
    await createCase(test, partner);
    await deliverAll();
    expect(receiver.at(hook.path)).toHaveLength(1);
    const [record] = (await deliveries(hook.id)).deliveries;
    expect(record).toMatchObject({ status: 'failed', attemptCount: 1, httpStatus: 410 });
    expect(record!.lastError).toContain('deactivated');
    expect((await call(partner, 'GET', `/webhooks/${hook.id}`)).json<{ isActive: boolean }>().isActive).toBe(false);
    await createCase(test, partner);
    expect((await deliveries(hook.id)).totalCount).toBe(1);
  });

  it('signs with the new secret as soon as it is rotated; the old one no longer verifies', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    const rotated = await call(partner, 'POST', `/webhooks/${hook.id}/rotate-secret`);
    const { newSigningSecret } = rotated.json<{ newSigningSecret: string }>();
    await createCase(test, partner);
    await deliverAll();
    const [receipt] = receiver.at(hook.path);
    expect(receipt!.verification).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(receipt!.standard).toEqual({ ok: false, message: 'No matching signature found' });
    receiver.trust(hook.path, newSigningSecret);
    await call(partner, 'POST', `/webhooks/${hook.id}/test`);
    await deliverAll();
    expect(receiver.at(hook.path)[1]!.verification).toMatchObject({ ok: true });
  });

  it('holds the deliveries of a paused endpoint and sends them when it is activated again', async () => {
    const hook = await endpoint(partner, ['verification.session_issued', 'verification.cancelled']);
    receiver.answer(hook.path, () => ({ status: 500 }));
    const created = await createCase(test, partner);
    await test.worker.deliverWebhooks();
    await call(partner, 'POST', `/webhooks/${hook.id}/deactivate`);
    receiver.answer(hook.path, () => ({ status: 204 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await deliverAll();
    expect(receiver.at(hook.path)).toHaveLength(1);
    expect((await deliveries(hook.id)).deliveries[0]).toMatchObject({ status: 'pending', attemptCount: 1 });
    // A paused endpoint gets no new deliveries at all.
    await call(partner, 'POST', `/verifications/${created.json<{ caseId: string }>().caseId}/cancel`, { reason: 'test' });
    expect((await deliveries(hook.id)).totalCount).toBe(1);
    await call(partner, 'POST', `/webhooks/${hook.id}/activate`);
    await deliverAll();
    expect(receiver.at(hook.path)).toHaveLength(2);
    expect((await deliveries(hook.id)).deliveries[0]).toMatchObject({ status: 'succeeded', attemptCount: 2, eventType: 'verification.session_issued' });
  });

  it('sends a signed webhook.test ping once, whatever the endpoint subscribes to', async () => {
    const hook = await endpoint(partner, ['verification.failed']);
    const response = await call(partner, 'POST', `/webhooks/${hook.id}/test`);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ eventType: 'webhook.test', caseId: null, status: 'pending', attemptCount: 0, httpStatus: null });
    await deliverAll();
    const [ping] = receiver.at(hook.path);
    expect(ping!.verification).toMatchObject({ ok: true });
    expect(ping!.headers['x-service-event']).toBe('webhook.test');
    expect(ping!.body).toMatchObject({ eventType: 'webhook.test', apiVersion: 'v1', tenantId: partner.tenantId, data: { webhookId: hook.id } });
    receiver.answer(hook.path, () => ({ status: 500 }));
    await call(partner, 'POST', `/webhooks/${hook.id}/test`);
    await deliverAll();
    expect(receiver.at(hook.path)).toHaveLength(2);
    expect((await deliveries(hook.id, '?eventType=webhook.test&succeeded=false')).deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 1, httpStatus: 500 });
  });

  it('retries a finished delivery once on request, with the same id; 409 while it is open, 404 for another endpoint', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    receiver.answer(hook.path, () => ({ status: 500 }));
    await createCase(test, partner);
    await test.worker.deliverWebhooks();
    const [open] = (await deliveries(hook.id)).deliveries;
    expect((await call(partner, 'POST', `/webhooks/${hook.id}/deliveries/${open!.id}/retry`)).statusCode).toBe(409);
    await deliverAll();
    receiver.answer(hook.path, () => ({ status: 204 }));
    const retried = await call(partner, 'POST', `/webhooks/${hook.id}/deliveries/${open!.id}/retry`);
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json()).toMatchObject({ id: open!.id, status: 'pending' });
    await deliverAll();
    const last = receiver.at(hook.path).at(-1)!;
    expect(last.headers['x-service-delivery-id']).toBe(open!.id);
    expect(last.headers['x-service-delivery-attempt']).toBe('6');
    expect((await deliveries(hook.id)).deliveries[0]).toMatchObject({ status: 'succeeded', attemptCount: 6, httpStatus: 204 });
    const another = await endpoint(partner, ['verification.failed']);
    expect((await call(partner, 'POST', `/webhooks/${another.id}/deliveries/${open!.id}/retry`)).statusCode).toBe(404);
    expect((await call(other, 'POST', `/webhooks/${hook.id}/deliveries/${open!.id}/retry`)).statusCode).toBe(404);
  });

  it('recovers the failed deliveries of a window, and only those', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    receiver.answer(hook.path, () => ({ status: 500 }));
    for (let index = 0; index < 3; index++) await createCase(test, partner);
    await deliverAll();
    receiver.answer(hook.path, () => ({ status: 204 }));
    await createCase(test, partner);
    await deliverAll();
    // One failure from long before the outage.
    const [oldest] = (await deliveries(hook.id, '?succeeded=false')).deliveries.slice(-1);
    await test.db.update(webhookDeliveries).set({ createdAt: new Date('2026-01-01T00:00:00Z') }).where(eq(webhookDeliveries.id, oldest!.id));
    const since = new Date(Date.now() - 60_000).toISOString();
    const recovered = await call(partner, 'POST', `/webhooks/${hook.id}/recover`, { since });
    expect(recovered.statusCode, recovered.body).toBe(202);
    expect(recovered.json()).toMatchObject({ requeued: 2, since });
    await deliverAll();
    const records = (await deliveries(hook.id)).deliveries;
    expect(records.filter((record) => record.succeeded)).toHaveLength(3);
    expect(records.find((record) => record.id === oldest!.id)).toMatchObject({ status: 'failed', attemptCount: 5 });
  });

  it('deletes finished deliveries past DELIVERY_RETENTION_DAYS and keeps the rest', async () => {
    const hook = await endpoint(partner, ['verification.session_issued']);
    for (let index = 0; index < 3; index++) await createCase(test, partner);
    await deliverAll();
    const ids = (await deliveries(hook.id)).deliveries.map((record) => record.id);
    await test.db.update(webhookDeliveries).set({ completedAt: new Date(Date.now() - 31 * 86_400_000) }).where(eq(webhookDeliveries.id, ids[0]!));
    expect(await test.worker.purgeDeliveries()).toBeGreaterThanOrEqual(1);
    expect((await deliveries(hook.id)).deliveries.map((record) => record.id)).toEqual(ids.slice(1));
  });
});

describe('webhook delivery under the production policy', () => {
  let test: TestApp;
  let receiver: SignedReceiver;

  beforeAll(async () => {
    test = await buildTestApp({ WEBHOOK_RETRY_SCHEDULE_MS: '0,0,0,0,0' });
    receiver = await startSignedReceiver();
  });
  afterAll(async () => {
    await test.close();
    await receiver.close();
  });

  it.each([
    ['a host name that now resolves to loopback (DNS rebinding)', (port: number) => `https://localhost:${port}/rebound`, 'loopback'],
    ['a loopback address', (port: number) => `https://127.0.0.1:${port}/direct`, 'loopback'],
  ])('refuses to connect to %s at delivery time', async (_what, url, reason) => {
    const partner = await partnerWithToken(test, 'Acme');
    const port = Number(new URL(receiver.url('/')).port);
    // Registered while it was public (inserted directly: registration would refuse it today).
    const id = crypto.randomUUID();
    const sealed = createSecretBox(test.dependencies.secretsKey).encrypt('whsec_test', id);
    const [row] = await test.db
      .insert(webhookEndpoints)
      .values({ id, tenantId: partner.tenantId, url: url(port), eventTypes: ['verification.session_issued'], signingSecretSealed: sealed, createdAt: new Date(), updatedAt: new Date() })
      .returning();
    await createCase(test, partner);
    await test.worker.deliverWebhooks();
    const [delivery] = await test.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, row!.id));
    expect(delivery).toMatchObject({ lastStatusCode: 0, attemptCount: 1 });
    expect(delivery!.lastError).toContain('refused to connect');
    expect(delivery!.lastError).toContain(reason);
    expect(receiver.receipts).toEqual([]);
  });
});
