import { generateSigningSecret, verifyIdentityWebhook } from '@svc/webhook-signing';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { webhookEndpoints } from '../src/db/schema.js';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../src/domain/webhooks/webhook-events.js';
import { createCase, partnerWithToken, submittedCase, type Partner } from './case-helpers.js';
import { startSignedReceiver, verifyStandard, type Receipt, type SignedReceiver } from './fixtures/signed-receiver.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,0,0,0,0' };
const STANDARD_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('identity deliveries carry Standard Webhooks headers beside the spec headers', () => {
  const clock = manualClock();
  let test: TestApp;
  let receiver: SignedReceiver;
  let partner: Partner;
  let other: Partner;
  let path = 0;

  beforeAll(async () => {
    test = await buildTestApp(ENV, { clock: clock.now });
    receiver = await startSignedReceiver();
    partner = await partnerWithToken(test, 'Acme', undefined, { sandbox: true });
    other = await partnerWithToken(test, 'Globex', undefined, { sandbox: true });
  });
  afterAll(async () => {
    await test.close();
    await receiver.close();
  });
  afterEach(() => vi.useRealTimers());

  const call = (who: Partner, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    test.app.inject({ method, url: `${BASE}${url}`, headers: who.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function endpoint(eventTypes: readonly string[] = WEBHOOK_EVENT_TYPES) {
    const hookPath = `/standard-${++path}`;
    const response = await call(partner, 'POST', '/webhooks', { url: receiver.url(hookPath), eventTypes });
    expect(response.statusCode, response.body).toBe(201);
    const { endpoint: created, signingSecret } = response.json<{ endpoint: { id: string }; signingSecret: string }>();
    receiver.trust(hookPath, signingSecret);
    return { id: created.id, path: hookPath, signingSecret };
  }

  /** Every delivery here succeeds at its first attempt, so nothing is due once a claim finds nothing. */
  async function deliverAll() {
    while ((await test.worker.deliverWebhooks()) > 0);
  }

  async function ping(hook: { id: string; path: string }): Promise<Receipt> {
    const before = receiver.at(hook.path).length;
    expect((await call(partner, 'POST', `/webhooks/${hook.id}/test`)).statusCode).toBe(202);
    await deliverAll();
    const received = receiver.at(hook.path);
    expect(received).toHaveLength(before + 1);
    return received.at(-1)!;
  }

  const specVerifies = (secret: string, receipt: Receipt) => verifyIdentityWebhook({ secret, headers: receipt.headers, rawBody: receipt.rawBody }).ok;
  const standardVerifies = (secret: string, receipt: Receipt) => verifyStandard(secret, receipt).ok;

  it('verifies every event type and the test ping with the standardwebhooks package and with X-Service-Signature', async () => {
    const hook = await endpoint();
    expect(hook.signingSecret).toMatch(STANDARD_SECRET);
    for (const outcome of ['approve', 'reject', 'review', 'fail', 'expire']) await submittedCase(test, partner, `order#${outcome}`);
    await test.worker.runJobs();
    const cancelled = (await createCase(test, partner)).json<{ caseId: string }>().caseId;
    expect((await call(partner, 'POST', `/verifications/${cancelled}/cancel`, { reason: 'customer left' })).statusCode).toBe(204);
    await deliverAll();
    const approvedCase = receiver.at(hook.path).find((receipt) => receipt.body.eventType === 'verification.approved')!.body.data.caseId as string;
    expect((await call(partner, 'POST', `/verifications/${approvedCase}/redact`)).statusCode).toBe(202);
    await test.worker.runJobs();
    await deliverAll();
    await ping(hook);

    const received = receiver.at(hook.path);
    expect(new Set(received.map((receipt) => receipt.body.eventType))).toEqual(new Set([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]));
    for (const receipt of received) {
      expect(receipt.verification, receipt.body.eventType).toMatchObject({ ok: true });
      expect(receipt.standard, receipt.body.eventType).toEqual({ ok: true });
      expect(receipt.headers['webhook-id']).toBe(receipt.headers['x-service-delivery-id']);
      expect(receipt.headers['webhook-timestamp']).toBe(receipt.headers['x-service-timestamp']);
      expect(receipt.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(receipt.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    }
    expect(new Set(received.map((receipt) => receipt.headers['webhook-id'])).size).toBe(received.length);
  });

  it('refuses a tampered body, a wrong secret and an old timestamp, by both schemes, over HTTP', async () => {
    const hook = await endpoint(['verification.session_issued']);
    const delivered = await ping(hook);
    const replay = async (body: Buffer) => {
      const { host: _host, connection: _connection, 'content-length': _length, ...headers } = delivered.headers as Record<string, string>;
      const response = await fetch(receiver.url(hook.path), { method: 'POST', headers, body: new Uint8Array(body) });
      expect(response.status).toBe(204);
      return receiver.at(hook.path).at(-1)!;
    };

    const tampered = await replay(Buffer.from(delivered.rawBody.toString('utf8').replace(partner.tenantId, other.tenantId)));
    expect(tampered.rawBody.equals(delivered.rawBody)).toBe(false);
    expect(tampered.verification).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(tampered.standard).toEqual({ ok: false, message: 'No matching signature found' });

    const wrong = generateSigningSecret();
    expect(specVerifies(wrong, delivered)).toBe(false);
    expect(verifyStandard(wrong, delivered)).toEqual({ ok: false, message: 'No matching signature found' });

    // The same untouched delivery, arriving six minutes later.
    vi.useFakeTimers({ now: Date.now() + 360_000, toFake: ['Date'] });
    const late = await replay(delivered.rawBody);
    expect(late.verification).toMatchObject({ ok: false, reason: 'stale_timestamp' });
    expect(late.standard).toEqual({ ok: false, message: 'Message timestamp too old' });
    vi.useRealTimers();
    expect((await replay(delivered.rawBody)).standard).toEqual({ ok: true });
  });

  it('rotating without a body invalidates the old secret at once, for both schemes', async () => {
    const hook = await endpoint(['verification.session_issued']);
    const rotated = await call(partner, 'POST', `/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const body = rotated.json<{ newSigningSecret: string }>();
    expect(Object.keys(body)).toEqual(['newSigningSecret']);
    expect(body.newSigningSecret).toMatch(STANDARD_SECRET);
    const receipt = await ping(hook);
    expect(String(receipt.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([specVerifies(body.newSigningSecret, receipt), standardVerifies(body.newSigningSecret, receipt)]).toEqual([true, true]);
    expect([specVerifies(hook.signingSecret, receipt), standardVerifies(hook.signingSecret, receipt)]).toEqual([false, false]);
  });

  it('rotating with a grace window signs webhook-signature with both secrets until it ends, the spec header with the new one', async () => {
    const hook = await endpoint(['verification.session_issued']);
    const rotated = await call(partner, 'POST', `/webhooks/${hook.id}/rotate-secret`, { previousSecretValidSeconds: 600 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { newSigningSecret, previousSecretExpiresAt } = rotated.json<{ newSigningSecret: string; previousSecretExpiresAt: string }>();
    expect(previousSecretExpiresAt).toBe(new Date(clock.now().getTime() + 600_000).toISOString());
    const [row] = await test.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, hook.id));
    expect(row!.previousSigningSecretSealed).toEqual(expect.any(String));
    expect(row!.previousSigningSecretSealed).not.toContain(hook.signingSecret.slice(6));

    const during = await ping(hook);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([standardVerifies(newSigningSecret, during), standardVerifies(hook.signingSecret, during)]).toEqual([true, true]);
    expect([specVerifies(newSigningSecret, during), specVerifies(hook.signingSecret, during)]).toEqual([true, false]);

    clock.advance(599_000);
    expect(standardVerifies(hook.signingSecret, await ping(hook))).toBe(true);
    clock.advance(1_000);
    const after = await ping(hook);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([standardVerifies(newSigningSecret, after), standardVerifies(hook.signingSecret, after)]).toEqual([true, false]);
  });

  it('a second rotation keeps only the secret it replaces; one without a body drops it', async () => {
    const hook = await endpoint(['verification.session_issued']);
    const rotate = async (payload?: object) => (await call(partner, 'POST', `/webhooks/${hook.id}/rotate-secret`, payload)).json<{ newSigningSecret: string }>().newSigningSecret;
    const second = await rotate({ previousSecretValidSeconds: 3600 });
    const third = await rotate({ previousSecretValidSeconds: 3600 });
    const receipt = await ping(hook);
    expect([third, second, hook.signingSecret].map((secret) => standardVerifies(secret, receipt))).toEqual([true, true, false]);
    const fourth = await rotate();
    expect([fourth, third].map((secret) => standardVerifies(secret, receipt))).toEqual([false, true]);
    const last = await ping(hook);
    expect([fourth, third].map((secret) => standardVerifies(secret, last))).toEqual([true, false]);
  });

  it.each([[-1], [604_801], [1.5], ['600'], [null]])('answers 400 problem+json to previousSecretValidSeconds %j and keeps the secret', async (value) => {
    const hook = await endpoint(['verification.session_issued']);
    const response = await call(partner, 'POST', `/webhooks/${hook.id}/rotate-secret`, { previousSecretValidSeconds: value });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(standardVerifies(hook.signingSecret, await ping(hook))).toBe(true);
  });

  it('accepts the 7-day maximum and refuses unknown fields; another tenant gets 404', async () => {
    const hook = await endpoint(['verification.session_issued']);
    const longest = await call(partner, 'POST', `/webhooks/${hook.id}/rotate-secret`, { previousSecretValidSeconds: 604_800 });
    expect(longest.json()).toMatchObject({ previousSecretExpiresAt: new Date(clock.now().getTime() + 604_800_000).toISOString() });
    expect((await call(partner, 'POST', `/webhooks/${hook.id}/rotate-secret`, { previousSecretValidSecs: 60 })).statusCode).toBe(400);
    expect((await call(other, 'POST', `/webhooks/${hook.id}/rotate-secret`, { previousSecretValidSeconds: 60 })).statusCode).toBe(404);
  });
});
