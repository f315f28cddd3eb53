import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, evidence, jobs } from '../src/db/schema.js';
import { CAPTURE, createCase, getCase, jpegBytes, mp4Bytes, multipartBody, partnerWithToken, pngBytes, sha256, startedCase, uploadEvidence, uploadPassportEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

describe('end-user capture: session exchange, uploads, submit, status', () => {
  let test: TestApp;
  let acme: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', MAX_IMAGE_BYTES: '65536', MAX_VIDEO_BYTES: '131072' });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test.close());

  const exchange = (sessionToken: string) => test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${sessionToken}` } });
  const status = (captureToken: string) => test.app.inject({ method: 'GET', url: `${CAPTURE}/status`, headers: { authorization: `Bearer ${captureToken}` } });
  const submit = (captureToken: string) => test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: { authorization: `Bearer ${captureToken}` } });

  it('exchanges the session token once: CaptureStarted, a capture token, what to upload', async () => {
    const created = (await createCase(test, acme, { documentType: 'SyrianNationalId' })).json<{ caseId: string; sessionToken: string; expiresAt: string }>();
    const response = await exchange(created.sessionToken);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      captureToken: expect.stringMatching(/^svc_ct_[0-9a-f]{64}$/),
      caseId: created.caseId,
      documentType: 'SyrianNationalId',
      requiredEvidence: ['DocumentFront', 'DocumentBack', 'Selfie', 'LivenessVideo'],
      expiresAt: created.expiresAt,
    });
    const detail = (await getCase(test, acme, created.caseId)).json<{ status: string; session: { isUsed: boolean; usedAt: string | null } }>();
    expect(detail.status).toBe('CaptureStarted');
    expect(detail.session.isUsed).toBe(true);
    expect(detail.session.usedAt).not.toBeNull();
    const again = await exchange(created.sessionToken);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ code: 'SESSION_ALREADY_USED' });
  });

  it('draws the head-turn side per case when capture starts and keeps it for the case', async () => {
    const sides = new Set<string>();
    // Cases until both sides have come up: a fair draw gives both within 40 cases but for 1 in 5·10¹¹.
    for (let drawn = 0; sides.size < 2 && drawn < 40; drawn += 1) {
      const started = await startedCase(test, acme, 'SyrianPassport');
      const first = (await status(started.captureToken)).json<{ livenessChallenge: { headTurnSide: string; instructions: string } }>().livenessChallenge;
      expect(['left', 'right']).toContain(first.headTurnSide);
      expect(first.instructions).toContain(`your ${first.headTurnSide}`);
      expect((await status(started.captureToken)).json()).toMatchObject({ livenessChallenge: { headTurnSide: first.headTurnSide } });
      sides.add(first.headTurnSide);
    }
    expect(sides.size).toBe(2);
  });

  it('refuses a missing, malformed or unknown session token with 401, and a cancelled case with 410', async () => {
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/session` })).statusCode).toBe(401);
    expect((await exchange('svc_st_short')).statusCode).toBe(401);
    expect((await exchange(`svc_st_${'0'.repeat(64)}`)).statusCode).toBe(401);
    const created = (await createCase(test, acme)).json<{ caseId: string; sessionToken: string }>();
    await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${created.caseId}/cancel`, headers: acme.headers, payload: { reason: 'customer left' } });
    const response = await exchange(created.sessionToken);
    expect(response.statusCode).toBe(410);
    expect(response.json()).toMatchObject({ code: 'CASE_CLOSED', currentStatus: 'Cancelled' });
  });

  it('stores an upload with the sniffed type, size, SHA-256 and a clean file name, and lists it in the detail', async () => {
    const started = await startedCase(test, acme);
    const bytes = jpegBytes(5000);
    const response = await uploadEvidence(test, started.captureToken, 'DocumentFront', bytes, '../../etc/passport front.jpg', 'text/plain');
    expect(response.statusCode).toBe(201);
    const { quality, ...record } = response.json<Record<string, unknown>>();
    expect(record).toMatchObject({ evidenceType: 'DocumentFront', contentType: 'image/jpeg', fileSizeBytes: 5000, sha256Hash: sha256(bytes), originalFileName: 'passport front.jpg' });
    // No on-CPU checks here: the answer says so with null, and the hint is no part of the stored record.
    expect(quality).toBeNull();
    const detail = (await getCase(test, acme, started.caseId)).json<{ documentEvidence: unknown[] }>();
    expect(detail.documentEvidence).toEqual([record]);
    const [row] = await test.db.select().from(evidence).where(eq(evidence.id, record.id as string));
    expect(row!.storageKey).toBe(`${acme.tenantId}/${started.caseId}/${record.id as string}`);
  });

  it('replaces an evidence type on a second upload and keeps the first in the audit trail', async () => {
    const started = await startedCase(test, acme);
    const first = (await uploadEvidence(test, started.captureToken, 'Selfie', pngBytes())).json<{ id: string }>();
    const second = (await uploadEvidence(test, started.captureToken, 'Selfie', jpegBytes())).json<{ id: string }>();
    const detail = (await getCase(test, acme, started.caseId)).json<{ selfieEvidence: { id: string }[] }>();
    expect(detail.selfieEvidence.map((item) => item.id)).toEqual([second.id]);
    const uploads = await test.db.select().from(auditLog).where(and(eq(auditLog.action, 'evidence.uploaded'), eq(auditLog.tenantId, acme.tenantId)));
    expect(uploads.map((row) => row.target)).toEqual(expect.arrayContaining([`evidence:${first.id}`, `evidence:${second.id}`]));
    expect(uploads.find((row) => row.target === `evidence:${second.id}`)?.after).toMatchObject({ replaced: [first.id] });
  });

  it.each([
    ['a PNG named .mp4 as the video', 'LivenessVideo', pngBytes(), 'clip.mp4', 'video/mp4', 'image/png'],
    ['text named .jpg as a selfie', 'Selfie', Buffer.from('hello, I am not a picture at all\n'.repeat(20)), 'me.jpg', 'image/jpeg', null],
    ['a video as the document', 'DocumentFront', mp4Bytes(), 'front.jpg', 'image/jpeg', 'video/mp4'],
  ])('refuses %s with 415 whatever the name and Content-Type claim', async (_name, type, bytes, fileName, claimed, detected) => {
    const started = await startedCase(test, acme);
    const response = await uploadEvidence(test, started.captureToken, type, bytes, fileName, claimed);
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', detectedContentType: detected });
    expect(await test.db.select().from(evidence).where(eq(evidence.caseId, started.caseId))).toHaveLength(0);
  });

  it('refuses an image over MAX_IMAGE_BYTES and a video over MAX_VIDEO_BYTES with 413, storing nothing', async () => {
    const started = await startedCase(test, acme);
    const image = await uploadEvidence(test, started.captureToken, 'DocumentFront', jpegBytes(65_537));
    expect(image.statusCode).toBe(413);
    expect(image.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect((await uploadEvidence(test, started.captureToken, 'DocumentFront', jpegBytes(65_536))).statusCode).toBe(201);
    expect((await uploadEvidence(test, started.captureToken, 'LivenessVideo', mp4Bytes(131_073))).statusCode).toBe(413);
    expect((await uploadEvidence(test, started.captureToken, 'LivenessVideo', mp4Bytes(100_000))).statusCode).toBe(201);
    expect(await test.db.select().from(evidence).where(eq(evidence.caseId, started.caseId))).toHaveLength(2);
    const objects = await readdir(join(test.evidenceDir, 'objects', acme.tenantId, started.caseId));
    expect(objects).toHaveLength(2);
    expect(await readdir(join(test.evidenceDir, 'spool'))).toEqual([]);
  });

  it('refuses malformed uploads with a precise 4xx', async () => {
    const started = await startedCase(test, acme);
    const send = (parts: Parameters<typeof multipartBody>[0]) => {
      const body = multipartBody(parts);
      return test.app.inject({ method: 'POST', url: `${CAPTURE}/evidence`, headers: { ...started.capture, 'content-type': body.contentType }, payload: body.payload });
    };
    const file = { name: 'file', fileName: 'a.jpg', contentType: 'image/jpeg', bytes: jpegBytes() };
    const typeAfterFile = await send([file, { name: 'evidenceType', value: 'Selfie' }]);
    expect(typeAfterFile.statusCode).toBe(400);
    expect(typeAfterFile.json()).toMatchObject({ detail: expect.stringContaining('before the file') });
    const unknownType = await send([{ name: 'evidenceType', value: 'Fingerprint' }, file]);
    expect(unknownType.statusCode).toBe(400);
    expect(unknownType.json()).toMatchObject({ detail: expect.stringContaining('DocumentFront, DocumentBack, Selfie, LivenessVideo') });
    const noFile = await send([{ name: 'evidenceType', value: 'Selfie' }]);
    expect(noFile.statusCode).toBe(400);
    const wrongField = await send([{ name: 'evidenceType', value: 'Selfie' }, { ...file, name: 'photo' }]);
    expect(wrongField.statusCode).toBe(400);
    const json = await test.app.inject({ method: 'POST', url: `${CAPTURE}/evidence`, headers: started.capture, payload: { evidenceType: 'Selfie' } });
    expect(json.statusCode).toBe(415);
    const noToken = await uploadEvidence(test, 'svc_ct_nope', 'Selfie', jpegBytes());
    expect(noToken.statusCode).toBe(401);
  });

  it('submits only with every required piece: 400 names what is missing, then EvidenceUploaded with one queued run-checks job', async () => {
    const started = await startedCase(test, acme, 'SyrianNationalId');
    await uploadEvidence(test, started.captureToken, 'DocumentFront', jpegBytes());
    const early = await submit(started.captureToken);
    expect(early.statusCode).toBe(400);
    expect(early.json()).toMatchObject({ code: 'VALIDATION_ERROR', detail: expect.stringContaining('DocumentBack, Selfie, LivenessVideo') });
    const resume = (await status(started.captureToken)).json<{ missing: string[]; uploaded: { evidenceType: string }[]; status: string }>();
    expect(resume).toMatchObject({ status: 'CaptureStarted', missing: ['DocumentBack', 'Selfie', 'LivenessVideo'], uploaded: [expect.objectContaining({ evidenceType: 'DocumentFront' })] });
    await uploadEvidence(test, started.captureToken, 'DocumentBack', jpegBytes());
    await uploadEvidence(test, started.captureToken, 'Selfie', pngBytes());
    await uploadEvidence(test, started.captureToken, 'LivenessVideo', mp4Bytes());
    const done = await submit(started.captureToken);
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ caseId: started.caseId, status: 'EvidenceUploaded' });
    const queued = await test.db.select().from(jobs).where(eq(jobs.subjectId, started.caseId));
    expect(queued).toMatchObject([{ kind: 'run-checks', status: 'pending' }]);
    // Visible without a CLI: health lists the queued run-checks jobs.
    const health = (await test.app.inject({ method: 'GET', url: '/health' })).json<{ checks: { jobs: { kind: string; status: string; count: number }[] } }>();
    expect(health.checks.jobs).toContainEqual(expect.objectContaining({ kind: 'run-checks', status: 'pending', count: expect.any(Number) }));
    expect((await status(started.captureToken)).json()).toMatchObject({ status: 'EvidenceUploaded', missing: [] });
    const again = await submit(started.captureToken);
    expect(again.statusCode).toBe(409);
    const lateUpload = await uploadEvidence(test, started.captureToken, 'Selfie', jpegBytes());
    expect(lateUpload.statusCode).toBe(409);
    expect(await test.db.select().from(jobs).where(eq(jobs.subjectId, started.caseId))).toHaveLength(1);
  });

  it('accepts an empty JSON object as the submit body and refuses anything else', async () => {
    const started = await startedCase(test, acme);
    await uploadPassportEvidence(test, started.captureToken);
    const withField = await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture, payload: { force: true } });
    expect(withField.statusCode).toBe(400);
    const empty = await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture, payload: {} });
    expect(empty.statusCode).toBe(200);
  });

  it('closes capture on a cancelled case: uploads and submit get 410, status still answers', async () => {
    const started = await startedCase(test, acme);
    await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${started.caseId}/cancel`, headers: acme.headers, payload: { reason: 'duplicate' } });
    const upload = await uploadEvidence(test, started.captureToken, 'Selfie', jpegBytes());
    expect(upload.statusCode).toBe(410);
    expect(upload.json()).toMatchObject({ code: 'CASE_CLOSED' });
    expect((await submit(started.captureToken)).statusCode).toBe(410);
    expect((await status(started.captureToken)).json()).toMatchObject({ status: 'Cancelled' });
  });
});
