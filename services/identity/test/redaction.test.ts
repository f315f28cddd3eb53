import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, caseEvents, evidence, jobs, ocrResults, webhookDeliveries } from '../src/db/schema.js';
import type { ChecksProvider } from '../src/domain/checks/checks-provider.js';
import { sandboxSimulator } from '../src/domain/checks/sandbox-simulator.js';
import { createCase, getCase, partnerWithToken, startedCase, submittedCase, type Partner } from './case-helpers.js';
import { createPortalUser, updateTenantSettings } from '../src/domain/tenants/tenants.js';
import { BASE, buildTestApp, PASSWORD, type TestApp } from './helpers.js';

/** Every file under dir, recursively (the file system store keeps objects at objects/<tenant>/<case>/<id>). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('POST /verifications/{id}/redact', () => {
  let test: TestApp;
  let documentNumber = 'N1000001';
  const scripted: ChecksProvider = {
    name: 'scripted',
    async ocr(input) {
      const answer = await sandboxSimulator.ocr({ ...input, externalReference: null });
      return { ...answer, fields: { ...answer.fields, documentNumber, fullName: 'Jane Doe', dateOfBirth: '1990-01-01' } };
    },
    faceMatch: (input) => sandboxSimulator.faceMatch({ ...input, externalReference: null }),
    liveness: (input) => sandboxSimulator.liveness({ ...input, externalReference: null }),
  };
  let acme: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, { checksProvider: scripted });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test.close());

  const redact = (partner: Partner, caseId: string) => test.app.inject({ method: 'POST', url: `${BASE}/verifications/${caseId}/redact`, headers: partner.headers });

  async function decidedCase(partner: Partner, number: string) {
    documentNumber = number;
    const started = await submittedCase(test, partner, `ref-${number}`);
    await test.worker.runJobs();
    const detail = (await getCase(test, partner, started.caseId)).json<{ status: string; documentEvidence: { id: string }[]; selfieEvidence: { id: string }[]; videoEvidence: { id: string }[] }>();
    expect(detail.status).toBe('Approved');
    return { caseId: started.caseId, evidenceIds: [...detail.documentEvidence, ...detail.selfieEvidence, ...detail.videoEvidence].map((item) => item.id) };
  }

  it('crypto-shreds and deletes the evidence, blanks the personal fields, keeps the record, answers 410 and sends verification.redacted', async () => {
    const hook = await test.app.inject({
      method: 'POST',
      url: `${BASE}/webhooks`,
      headers: acme.headers,
      payload: { url: 'http://127.0.0.1:9/hook', eventTypes: ['verification.redacted'] },
    });
    expect(hook.statusCode).toBe(201);
    const decided = await decidedCase(acme, 'N1000001');
    const before = (await getCase(test, acme, decided.caseId)).json<Record<string, unknown>>();
    expect(before).toMatchObject({ redactedAt: null, ocrResult: { extractedFieldsJson: expect.stringContaining('"fullName":"Jane Doe"') } });
    const caseDir = join(test.evidenceDir, 'objects', acme.tenantId, decided.caseId);
    expect(await filesUnder(caseDir)).toHaveLength(3);
    const download = await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${decided.evidenceIds[0]!}/file`, headers: acme.headers });
    expect(download.statusCode).toBe(200);

    const accepted = await redact(acme, decided.caseId);
    expect(accepted.statusCode).toBe(202);
    const body = accepted.json<{ caseId: string; redactionRequestedAt: string }>();
    expect(body).toEqual({ caseId: decided.caseId, redactionRequestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // Refused from the request on, before the job has run.
    const gone = await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${decided.evidenceIds[0]!}/file`, headers: acme.headers });
    expect(gone.statusCode).toBe(410);
    expect(gone.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(gone.json()).toMatchObject({ code: 'EVIDENCE_REDACTED' });

    await test.worker.runJobs();
    expect(await filesUnder(caseDir)).toEqual([]);
    const rows = await test.db.select().from(evidence).where(eq(evidence.caseId, decided.caseId));
    expect(rows.every((row) => row.sealedDataKey === null)).toBe(true);
    const after = (await getCase(test, acme, decided.caseId)).json<Record<string, unknown> & { documentEvidence: unknown[]; redactedAt: string }>();
    expect(after).toMatchObject({
      status: 'Approved',
      externalReference: 'ref-N1000001',
      compositeRiskScore: before.compositeRiskScore,
      redactedAt: expect.stringMatching(/^\d{4}-/),
      ocrResult: { extractedFieldsJson: '{}', mrzRawText: null },
      documentEvidence: [expect.objectContaining({ sha256Hash: expect.stringMatching(/^[0-9a-f]{64}$/), fileSizeBytes: expect.any(Number) })],
    });
    const [ocr] = await test.db.select().from(ocrResults).where(eq(ocrResults.caseId, decided.caseId));
    expect(ocr).toMatchObject({ documentNumber: null, documentNumberDigest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(ocr)).not.toContain('N1000001');
    for (const id of decided.evidenceIds) {
      const response = await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${id}/file`, headers: acme.headers });
      expect(response.statusCode).toBe(410);
    }

    const [event] = await test.db.select().from(caseEvents).where(and(eq(caseEvents.caseId, decided.caseId), eq(caseEvents.eventType, 'verification.redacted')));
    expect(JSON.parse(event!.payload)).toMatchObject({
      eventType: 'verification.redacted',
      eventId: expect.stringMatching(/^evt_/),
      apiVersion: 'v1',
      tenantId: acme.tenantId,
      data: { caseId: decided.caseId, status: 'Approved', externalReference: 'ref-N1000001' },
    });
    const deliveries = await test.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subjectId, decided.caseId));
    expect(deliveries.map((delivery) => delivery.topic)).toEqual(['verification.redacted']);
    const audit = await test.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.target, `case:${decided.caseId}`));
    expect(audit.map((entry) => entry.action)).toEqual(expect.arrayContaining(['verification.redaction_requested', 'verification.redacted']));

    // Again: the same answer, no second job, no second event.
    const again = await redact(acme, decided.caseId);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(body);
    await test.worker.runJobs();
    expect(await test.db.select().from(jobs).where(and(eq(jobs.subjectId, decided.caseId), eq(jobs.kind, 'redact-case')))).toHaveLength(1);
    expect(await test.db.select().from(caseEvents).where(and(eq(caseEvents.caseId, decided.caseId), eq(caseEvents.eventType, 'verification.redacted')))).toHaveLength(1);
  });

  it('still flags a reused document number after the first case was redacted (its keyed digest stays)', async () => {
    const first = await decidedCase(acme, 'N2000002');
    expect((await redact(acme, first.caseId)).statusCode).toBe(202);
    await test.worker.runJobs();
    documentNumber = 'N2000002';
    const second = await submittedCase(test, acme);
    await test.worker.runJobs();
    expect((await getCase(test, acme, second.caseId)).json()).toMatchObject({ status: 'PendingManualReview', fraudSignals: [expect.objectContaining({ type: 'DocumentNumberReused' })] });
  });

  it("refuses an open case with 409 INVALID_CASE_STATE, answers 404 for another tenant's case and for an unknown one, 400 for a bad id", async () => {
    const open = await startedCase(test, acme);
    const refused = await redact(acme, open.caseId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'INVALID_CASE_STATE', currentStatus: 'CaptureStarted' });
    const requested = await createCase(test, acme);
    expect((await redact(acme, requested.json<{ caseId: string }>().caseId)).statusCode).toBe(409);

    const decided = await decidedCase(acme, 'N3000003');
    const other = await partnerWithToken(test, 'Other');
    const foreign = await redact(other, decided.caseId);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await getCase(test, acme, decided.caseId)).json()).toMatchObject({ redactedAt: null });
    expect((await redact(acme, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const bad = await redact(acme, 'not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('needs the verifications scope', async () => {
    const decided = await decidedCase(acme, 'N4000004');
    const evidenceOnly = await partnerWithToken(test, 'EvidenceOnly', 'evidence');
    const response = await redact(evidenceOnly, decided.caseId);
    expect(response.statusCode).toBe(403);
  });

  it('from the portal: PartnerAdmin may redact, PartnerReadOnly may not; the session shows the retention policy', async () => {
    const decided = await decidedCase(acme, 'N5000005');
    const email = `support-${decided.caseId}@example.com`;
    await test.db.transaction((tx) => createPortalUser(tx, { tenantId: acme.tenantId, email, password: PASSWORD, role: 'PartnerReadOnly' }, new Date()));
    const login = await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email, password: PASSWORD } });
    const readOnly = { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` };
    const refused = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${decided.caseId}/redact`, headers: readOnly });
    expect(refused.statusCode).toBe(403);
    expect((await getCase(test, acme, decided.caseId)).json()).toMatchObject({ redactedAt: null });
    const accepted = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${decided.caseId}/redact`, headers: acme.portal });
    expect(accepted.statusCode).toBe(202);
    const session = await test.app.inject({ method: 'GET', url: `${BASE}/portal/session`, headers: readOnly });
    expect(session.json()).toMatchObject({ tenant: { retention: { evidenceRetentionDays: 90, undecidedRetentionDays: 7, auditRetentionDays: 1826 } } });
    await test.db.transaction((tx) => updateTenantSettings(tx, acme.tenantId, { evidenceRetentionDays: '45' }, new Date()));
    const updated = await test.app.inject({ method: 'GET', url: `${BASE}/portal/session`, headers: readOnly });
    expect(updated.json()).toMatchObject({ tenant: { retention: { evidenceRetentionDays: 45 } } });
  });

  it('allows a cancelled case', async () => {
    const open = await startedCase(test, acme);
    const cancel = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${open.caseId}/cancel`, headers: acme.headers, payload: { reason: 'user left' } });
    expect(cancel.statusCode).toBe(204);
    expect((await redact(acme, open.caseId)).statusCode).toBe(202);
    await test.worker.runJobs();
    expect((await getCase(test, acme, open.caseId)).json()).toMatchObject({ status: 'Cancelled', redactedAt: expect.any(String) });
  });
});
