import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, caseEvents, verificationCases, webhookDeliveries } from '../src/db/schema.js';
import { CAPTURE, createCase, getCase, partnerWithToken, startedCase, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, clientWithToken, createLoggedInTenant, type TestApp } from './helpers.js';

describe('verification cases: create, read, list', () => {
  let test: TestApp;
  let acme: Partner;
  let other: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    acme = await partnerWithToken(test, 'Acme');
    other = await partnerWithToken(test, 'Other');
  });
  afterAll(() => test.close());

  it('creates a case: SessionIssued, a one-time svc_st_ token expiring 2 h later, audit and event rows', async () => {
    const before = Date.now();
    const response = await createCase(test, acme, { documentType: 'SyrianNationalId', externalReference: 'order-42' }, { 'x-correlation-id': 'corr-create-1' });
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json<{ caseId: string; sessionToken: string; status: string; expiresAt: string }>();
    expect(body.status).toBe('SessionIssued');
    expect(body.sessionToken).toMatch(/^svc_st_[0-9a-f]{64}$/);
    const ttl = Date.parse(body.expiresAt) - before;
    expect(ttl).toBeGreaterThan(7200_000 - 5000);
    expect(ttl).toBeLessThanOrEqual(7200_000 + 5000);
    const [stored] = await test.db.select().from(verificationCases).where(eq(verificationCases.id, body.caseId));
    expect(stored).toMatchObject({ tenantId: acme.tenantId, status: 'SessionIssued', externalReference: 'order-42' });
    expect(JSON.stringify(stored)).not.toContain(body.sessionToken.slice(7));
    const events = await test.db.select().from(caseEvents).where(eq(caseEvents.caseId, body.caseId));
    expect(events).toHaveLength(1);
    const payload = JSON.parse(events[0]!.payload) as Record<string, unknown>;
    expect(payload).toMatchObject({
      eventType: 'verification.session_issued',
      apiVersion: 'v1',
      tenantId: acme.tenantId,
      sandbox: false,
      data: { caseId: body.caseId, externalReference: 'order-42', status: 'SessionIssued', documentType: 'SyrianNationalId', compositeRiskScore: null, decisionReason: null, completedAt: null },
    });
    expect(payload.eventId).toBe(`evt_${events[0]!.id}`);
    const audit = await test.db.select().from(auditLog).where(and(eq(auditLog.action, 'verification.created'), eq(auditLog.target, `case:${body.caseId}`)));
    expect(audit[0]).toMatchObject({ tenantId: acme.tenantId, actor: `client:${acme.clientId}`, correlationId: 'corr-create-1' });
  });

  it("writes the creation's event for a sandbox tenant as every subscribed endpoint receives it: one delivery each, the same body as the logged event", async () => {
    const sandbox = await partnerWithToken(test, 'Sandbox Creations', undefined, { sandbox: true });
    const register = async (eventTypes: string[], path: string) => {
      const registered = await test.app.inject({ method: 'POST', url: `${BASE}/webhooks`, headers: sandbox.headers, payload: { url: `https://93.184.215.14/${path}`, eventTypes } });
      expect(registered.statusCode, registered.body).toBe(201);
      return registered.json<{ endpoint: { id: string } }>().endpoint.id;
    };
    const subscribed = [await register(['verification.session_issued'], 'a'), await register(['verification.session_issued', 'verification.approved'], 'b')];
    const unsubscribed = await register(['verification.approved'], 'c');
    const response = await createCase(test, sandbox, { documentType: 'SyrianPassport' }, { 'idempotency-key': 'sandbox-create-1' });
    expect(response.statusCode).toBe(201);
    const { caseId } = response.json<{ caseId: string }>();
    const [event] = await test.db.select().from(caseEvents).where(eq(caseEvents.caseId, caseId));
    expect(JSON.parse(event!.payload)).toMatchObject({ sandbox: true, tenantId: sandbox.tenantId, data: { caseId, status: 'SessionIssued', externalReference: null } });
    const deliveries = await test.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subjectId, caseId));
    expect(deliveries.map((delivery) => delivery.subscriptionId).sort()).toEqual([...subscribed].sort());
    expect(deliveries.map((delivery) => delivery.subscriptionId)).not.toContain(unsubscribed);
    for (const delivery of deliveries) expect(delivery).toMatchObject({ topic: 'verification.session_issued', payload: event!.payload, status: 'pending', attemptCount: 0 });
    const [stored] = await test.db.select().from(verificationCases).where(eq(verificationCases.id, caseId));
    expect(stored).toMatchObject({ sandbox: true, idempotencyKey: 'sandbox-create-1' });
    const audit = await test.db.select().from(auditLog).where(and(eq(auditLog.action, 'verification.created'), eq(auditLog.target, `case:${caseId}`)));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.after).toEqual({ status: 'SessionIssued', documentType: 'SyrianPassport', externalReference: null, idempotencyKey: 'sandbox-create-1' });

    // A replay writes no second case, event or delivery.
    const replay = await createCase(test, sandbox, { documentType: 'SyrianPassport' }, { 'idempotency-key': 'sandbox-create-1' });
    expect(replay.statusCode).toBe(201);
    expect(replay.json<{ caseId: string }>().caseId).toBe(caseId);
    expect(await test.db.select().from(caseEvents).where(eq(caseEvents.caseId, caseId))).toHaveLength(1);
    expect(await test.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subjectId, caseId))).toHaveLength(2);
  });

  it('answers the full detail with every section, empty where nothing exists yet', async () => {
    const { caseId } = (await createCase(test, acme, { documentType: 'SyrianPassport' })).json<{ caseId: string }>();
    const response = await getCase(test, acme, caseId);
    expect(response.statusCode).toBe(200);
    const detail = response.json<Record<string, unknown>>();
    expect(detail).toMatchObject({
      id: caseId,
      externalReference: null,
      status: 'SessionIssued',
      documentType: 'SyrianPassport',
      sandbox: false,
      compositeRiskScore: null,
      decisionReason: null,
      completedAt: null,
      session: { isUsed: false, usedAt: null },
      documentEvidence: [],
      selfieEvidence: [],
      videoEvidence: [],
      ocrResult: null,
      faceMatch: null,
      liveness: null,
      fraudSignals: [],
      reviewDecisions: [],
    });
    expect(Object.keys(detail).sort()).toEqual(
      [
        'id', 'externalReference', 'status', 'documentType', 'sandbox', 'compositeRiskScore', 'decisionReason', 'createdAt', 'updatedAt', 'completedAt', 'redactionRequestedAt', 'redactedAt', 'session', 'returnUrl', 'consent',
        'documentEvidence', 'selfieEvidence', 'videoEvidence', 'ocrResult', 'faceMatch', 'liveness', 'fraudSignals', 'reviewDecisions',
      ].sort(),
    );
  });

  it.each([
    ['no body fields', {}, 'body.documentType'],
    ['an unknown document type', { documentType: 'DriverLicense' }, 'body.documentType'],
    ['a 201-character externalReference', { documentType: 'SyrianPassport', externalReference: 'x'.repeat(201) }, 'body.externalReference'],
    ['an unknown field', { documentType: 'SyrianPassport', tenantId: 'x' }, 'body'],
  ])('refuses %s with 400 naming the field', async (_name, body, path) => {
    const response = await createCase(test, acme, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining(path) })]) });
  });

  it('accepts a 128-character Idempotency-Key and refuses 129 characters with 400', async () => {
    expect((await createCase(test, acme, { documentType: 'SyrianPassport' }, { 'idempotency-key': 'k'.repeat(128) })).statusCode).toBe(201);
    const response = await createCase(test, acme, { documentType: 'SyrianPassport' }, { 'idempotency-key': 'k'.repeat(129) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'headers.idempotency-key' })] });
  });

  it('replays the same key and body with the same case and a fresh token; the old token stops working', async () => {
    const headers = { 'idempotency-key': 'replay-1' };
    const first = (await createCase(test, acme, { documentType: 'SyrianPassport', externalReference: 'r1' }, headers)).json<{ caseId: string; sessionToken: string; expiresAt: string }>();
    const second = await createCase(test, acme, { documentType: 'SyrianPassport', externalReference: 'r1' }, headers);
    expect(second.statusCode).toBe(201);
    const replay = second.json<{ caseId: string; sessionToken: string; expiresAt: string }>();
    expect(replay.caseId).toBe(first.caseId);
    expect(replay.expiresAt).toBe(first.expiresAt);
    expect(replay.sessionToken).not.toBe(first.sessionToken);
    expect(await test.db.select().from(verificationCases).where(eq(verificationCases.idempotencyKey, 'replay-1'))).toHaveLength(1);
    const old = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${first.sessionToken}` } });
    expect(old.statusCode).toBe(401);
    const fresh = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${replay.sessionToken}` } });
    expect(fresh.statusCode).toBe(200);
    // The session is used now: the key is spent.
    const late = await createCase(test, acme, { documentType: 'SyrianPassport', externalReference: 'r1' }, headers);
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'CASE_EXISTS', detail: expect.stringContaining(first.caseId), caseId: first.caseId });
  });

  it('refuses the same key with another body with 409 CASE_EXISTS naming the original case', async () => {
    const headers = { 'idempotency-key': 'replay-2' };
    const first = (await createCase(test, acme, { documentType: 'SyrianPassport' }, headers)).json<{ caseId: string }>();
    const conflict = await createCase(test, acme, { documentType: 'SyrianNationalId' }, headers);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'CASE_EXISTS', detail: expect.stringContaining(first.caseId) });
  });

  it('keeps idempotency keys per tenant: another tenant may use the same key', async () => {
    const headers = { 'idempotency-key': 'shared-key' };
    const mine = (await createCase(test, acme, { documentType: 'SyrianPassport' }, headers)).json<{ caseId: string }>();
    const theirs = await createCase(test, other, { documentType: 'SyrianPassport' }, headers);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json<{ caseId: string }>().caseId).not.toBe(mine.caseId);
  });

  it('lists newest first with stable paging, a status filter, totals, and only the own tenant', async () => {
    const partner = await partnerWithToken(test, 'Lister');
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push((await createCase(test, partner, { documentType: 'SyrianPassport', externalReference: `l${index}` })).json<{ caseId: string }>().caseId);
    await startedCase(test, partner);
    const page1 = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?pageSize=2`, headers: partner.headers });
    expect(page1.statusCode).toBe(200);
    expect(page1.json()).toMatchObject({ page: 1, pageSize: 2, totalCount: 6, totalPages: 3 });
    const all = (await test.app.inject({ method: 'GET', url: `${BASE}/verifications?pageSize=100`, headers: partner.headers })).json<{ items: { id: string; createdAt: string }[] }>();
    expect(all.items).toHaveLength(6);
    const pages: string[] = [];
    for (const page of [1, 2, 3]) {
      const response = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?pageSize=2&page=${page}`, headers: partner.headers });
      pages.push(...response.json<{ items: { id: string }[] }>().items.map((item) => item.id));
    }
    expect(pages).toEqual(all.items.map((item) => item.id));
    const sorted = [...all.items].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    expect(all.items.map((item) => item.id)).toEqual(sorted.map((item) => item.id));
    const capturing = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?status=CaptureStarted`, headers: partner.headers });
    expect(capturing.json()).toMatchObject({ totalCount: 1, items: [expect.objectContaining({ status: 'CaptureStarted' })] });
    expect(Object.keys(capturing.json<{ items: object[] }>().items[0]!).sort()).toEqual(['completedAt', 'compositeRiskScore', 'createdAt', 'documentType', 'externalReference', 'id', 'status']);
    const beyond = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?page=9`, headers: partner.headers });
    expect(beyond.json()).toMatchObject({ items: [], totalCount: 6, page: 9 });
    const defaults = await test.app.inject({ method: 'GET', url: `${BASE}/verifications`, headers: partner.headers });
    expect(defaults.json()).toMatchObject({ page: 1, pageSize: 50 });
  });

  it.each(['pageSize=101', 'pageSize=0', 'page=0', 'page=-1', 'page=abc', 'status=Done', 'pagesize=10'])('refuses the list query %s with 400', async (query) => {
    const response = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?${query}`, headers: acme.headers });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it("keeps tenants apart: another tenant's case is 404 on read, cancel and OCR patch, and absent from its list", async () => {
    const { caseId } = (await createCase(test, acme, { documentType: 'SyrianPassport' })).json<{ caseId: string }>();
    expect((await getCase(test, other, caseId)).statusCode).toBe(404);
    const cancel = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${caseId}/cancel`, headers: other.headers, payload: { reason: 'not mine' } });
    expect(cancel.statusCode).toBe(404);
    const patch = await test.app.inject({ method: 'PATCH', url: `${BASE}/verifications/${caseId}/ocr-fields`, headers: other.headers, payload: { fields: { name: 'x' } } });
    expect(patch.statusCode).toBe(404);
    const list = (await test.app.inject({ method: 'GET', url: `${BASE}/verifications?pageSize=100`, headers: other.headers })).json<{ items: { id: string }[] }>();
    expect(list.items.map((item) => item.id)).not.toContain(caseId);
    expect((await getCase(test, acme, caseId)).statusCode).toBe(200);
  });

  it('answers 404 for an unknown case and 400 for a malformed id, never 500', async () => {
    expect((await getCase(test, acme, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    for (const id of ['not-a-uuid', '1', "'; drop table x;--", '%00']) {
      const response = await getCase(test, acme, encodeURIComponent(id));
      expect(response.statusCode, id).toBe(400);
    }
    const cancel = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/nope/cancel`, headers: acme.headers, payload: { reason: 'x' } });
    expect(cancel.statusCode).toBe(400);
  });

  it('needs a token with the verifications scope, or a portal session of the tenant', async () => {
    const tenant = await createLoggedInTenant(test, 'Scoped');
    const reportsOnly = await clientWithToken(test, tenant, 'reports');
    const response = await test.app.inject({ method: 'POST', url: `${BASE}/verifications`, headers: reportsOnly.headers, payload: { documentType: 'SyrianPassport' } });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ detail: expect.stringContaining('verifications') });
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications`, headers: tenant.portal })).json()).toMatchObject({ totalCount: 0 });
    expect((await test.app.inject({ method: 'GET', url: `${BASE}/verifications` })).statusCode).toBe(401);
  });
});
