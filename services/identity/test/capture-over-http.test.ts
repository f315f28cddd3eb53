import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { fetch, FormData } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, jobs } from '../src/db/schema.js';
import { CAPTURE, jpegBytes, mp4Bytes, partnerWithToken, pngBytes, sha256, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, clientWithToken, createLoggedInTenant, type TestApp } from './helpers.js';

/** The whole journey over a real socket, as a partner backend and a phone would make it. */
describe('a case from creation to EvidenceUploaded over real HTTP, and its evidence downloaded', () => {
  let test: TestApp;
  let origin: string;
  let acme: Partner;
  let other: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
    acme = await partnerWithToken(test, 'Acme');
    other = await partnerWithToken(test, 'Other');
  });
  afterAll(() => test.close());

  const partnerFetch = (partner: Partner, path: string, init: { method?: string; body?: string } = {}) =>
    fetch(`${origin}${BASE}${path}`, { ...init, headers: { ...partner.headers, ...(init.body ? { 'content-type': 'application/json' } : {}) } });

  async function upload(captureToken: string, evidenceType: string, bytes: Buffer, fileName: string) {
    const form = new FormData();
    form.append('evidenceType', evidenceType);
    form.append('file', new Blob([bytes as Buffer<ArrayBuffer>]), fileName);
    return fetch(`${origin}${CAPTURE}/evidence`, { method: 'POST', headers: { authorization: `Bearer ${captureToken}` }, body: form });
  }

  it('creates, exchanges, uploads, submits, and serves the same bytes back with safe headers', async () => {
    const created = await partnerFetch(acme, '/verifications', { method: 'POST', body: JSON.stringify({ documentType: 'SyrianNationalId', externalReference: 'http-1' }) });
    expect(created.status).toBe(201);
    const { caseId, sessionToken } = (await created.json()) as { caseId: string; sessionToken: string };
    const exchanged = await fetch(`${origin}${CAPTURE}/session`, { method: 'POST', headers: { authorization: `Bearer ${sessionToken}` } });
    expect(exchanged.status).toBe(200);
    const { captureToken } = (await exchanged.json()) as { captureToken: string };

    const files = {
      DocumentFront: { bytes: jpegBytes(300_000), name: 'بطاقة-أمامية.jpg' },
      DocumentBack: { bytes: jpegBytes(200_000), name: 'back.jpeg' },
      Selfie: { bytes: pngBytes(), name: 'selfie me.png' },
      LivenessVideo: { bytes: mp4Bytes(2_000_000), name: 'liveness.mp4' },
    };
    const ids: Record<string, string> = {};
    for (const [type, file] of Object.entries(files)) {
      const response = await upload(captureToken, type, file.bytes, file.name);
      expect(response.status, type).toBe(201);
      ids[type] = ((await response.json()) as { id: string }).id;
    }
    const submitted = await fetch(`${origin}${CAPTURE}/submit`, { method: 'POST', headers: { authorization: `Bearer ${captureToken}` } });
    expect(submitted.status).toBe(200);

    const detail = (await (await partnerFetch(acme, `/verifications/${caseId}`)).json()) as Record<string, { id: string; sha256Hash: string }[]> & { status: string };
    expect(detail.status).toBe('EvidenceUploaded');
    expect(detail.documentEvidence!.map((item) => item.id).sort()).toEqual([ids.DocumentFront, ids.DocumentBack].sort());
    expect(detail.selfieEvidence).toHaveLength(1);
    expect(detail.videoEvidence).toHaveLength(1);
    expect(await test.db.select().from(jobs).where(and(eq(jobs.subjectId, caseId), eq(jobs.kind, 'run-checks'), eq(jobs.status, 'pending')))).toHaveLength(1);

    for (const [type, file] of Object.entries(files)) {
      const response = await partnerFetch(acme, `/evidence/${ids[type]}/file`);
      expect(response.status, type).toBe(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(sha256(bytes), type).toBe(sha256(file.bytes));
      expect(response.headers.get('content-length')).toBe(String(file.bytes.length));
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-type')).toBe(type === 'LivenessVideo' ? 'video/mp4' : type === 'Selfie' ? 'image/png' : 'image/jpeg');
      const disposition = response.headers.get('content-disposition') ?? '';
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
      expect(decodeURIComponent(disposition.split("''")[1]!)).toBe(file.name);
    }
    const downloads = await test.db.select().from(auditLog).where(and(eq(auditLog.action, 'evidence.downloaded'), eq(auditLog.tenantId, acme.tenantId)));
    expect(downloads).toHaveLength(4);
    expect(downloads[0]).toMatchObject({ actor: `client:${acme.clientId}` });
  });

  it("answers 403 for another tenant's evidence, 404 for unknown, 400 for a malformed id, 403 without the evidence scope", async () => {
    const created = (await (await partnerFetch(acme, '/verifications', { method: 'POST', body: JSON.stringify({ documentType: 'SyrianPassport' }) })).json()) as { sessionToken: string };
    const { captureToken } = (await (await fetch(`${origin}${CAPTURE}/session`, { method: 'POST', headers: { authorization: `Bearer ${created.sessionToken}` } })).json()) as {
      captureToken: string;
    };
    const evidenceId = ((await (await upload(captureToken, 'Selfie', jpegBytes(), 'me.jpg')).json()) as { id: string }).id;
    const foreign = await partnerFetch(other, `/evidence/${evidenceId}/file`);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect((await partnerFetch(acme, '/evidence/00000000-0000-4000-8000-000000000000/file')).status).toBe(404);
    expect((await partnerFetch(acme, '/evidence/not-an-id/file')).status).toBe(400);
    const tenant = await createLoggedInTenant(test, 'Acme too');
    const narrow = await clientWithToken(test, tenant, 'verifications');
    const response = await fetch(`${origin}${BASE}/evidence/${evidenceId}/file`, { headers: narrow.headers });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ detail: expect.stringContaining('evidence') });
  });
});
