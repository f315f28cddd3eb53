import { describeEmbeddedOnly } from '@svc/db/testing';
import { FACE_MODEL, LIVENESS_MODEL, OCR_MODEL } from '@svc/checks-local';
import { SAMPLE_FACES, generateSyntheticDocument, sampleFaceJpeg, stillPhotoClip } from '@svc/checks-local/synthetic';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CAPTURE, getCase, partnerWithToken, startedCase, uploadEvidence, uploadPassportEvidence, type Partner } from './case-helpers.js';
import { buildTestApp, type TestApp } from './helpers.js';

type Detail = {
  status: string;
  decisionReason: string | null;
  ocrResult: { modelName: string; mrzIsValid: boolean | null; extractedFieldsJson: string } | null;
  faceMatch: { modelName: string; similarityScore: number; threshold: number } | null;
  liveness: { modelName: string; livenessScore: number; presentationAttackDetected: boolean; attackType: string | null } | null;
};

/**
 * A live tenant's case decided by the real on-CPU models (tesseract.js, Human on tfjs-wasm,
 * Debian's ffmpeg) through the capture API, as on a new user's machine. Embedded only: the
 * models do not care which database holds the case, and they cost CPU seconds per case.
 */
describeEmbeddedOnly('live cases decided by the local checks (CHECKS_PROVIDER=local)', () => {
  let test: TestApp;
  let partner: Partner;
  let evidence: { passport: Buffer; selfie: Buffer; video: Buffer; expectedDocumentNumber: string };

  beforeAll(async () => {
    test = await buildTestApp({ CHECKS_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '100000' });
    partner = await partnerWithToken(test, 'Live Partner');
    const [portraitFace, selfieFace] = SAMPLE_FACES.filter((face) => face.person === 'person-a');
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 7, portrait: await sampleFaceJpeg(portraitFace!, { scale: 3, margin: 0.4 }) });
    evidence = {
      passport: document.front.bytes,
      selfie: await sampleFaceJpeg(selfieFace!, { scale: 3, margin: 0.4 }),
      video: await stillPhotoClip({ container: 'mp4', seconds: 3 }),
      expectedDocumentNumber: document.expectedFields.documentNumber!,
    };
  }, 120_000);
  afterAll(() => test.close());

  async function submitLiveCase(): Promise<string> {
    const started = await startedCase(test, partner, 'SyrianPassport');
    for (const [type, bytes, name, contentType] of [
      ['DocumentFront', evidence.passport, 'passport.jpg', 'image/jpeg'],
      ['Selfie', evidence.selfie, 'selfie.jpg', 'image/jpeg'],
      ['LivenessVideo', evidence.video, 'selfie.mp4', 'video/mp4'],
    ] as const) {
      const uploaded = await uploadEvidence(test, started.captureToken, type, bytes, name, contentType);
      expect(uploaded.statusCode, `${type}: ${uploaded.body}`).toBe(201);
    }
    const status = await test.app.inject({ method: 'GET', url: `${CAPTURE}/status`, headers: started.capture });
    expect(status.json()).toMatchObject({ livenessChallenge: { blink: true, headTurnMinYawDegrees: expect.any(Number) } });
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture })).statusCode).toBe(200);
    return started.caseId;
  }

  it('reads the MRZ, matches the faces and refuses a still-photo video, with real scores and model names', async () => {
    const caseId = await submitLiveCase();
    expect(await test.worker.runJobs()).toBeGreaterThanOrEqual(1);
    const detail = (await getCase(test, partner, caseId)).json<Detail>();
    expect(detail.ocrResult).toMatchObject({ modelName: OCR_MODEL.name, mrzIsValid: true });
    expect(JSON.parse(detail.ocrResult!.extractedFieldsJson)).toMatchObject({ documentNumber: evidence.expectedDocumentNumber, nationality: 'SYR' });
    expect(detail.faceMatch).toMatchObject({ modelName: FACE_MODEL.name, threshold: 0.6 });
    // Two photos of the same man: well above what the sample set's other people score against him (median 0.32).
    expect(detail.faceMatch!.similarityScore).toBeGreaterThan(0.4);
    // A video made from one still photo is no live person: never approved.
    expect(detail.liveness).toMatchObject({ modelName: LIVENESS_MODEL.name, presentationAttackDetected: true, attackType: 'suspected-photo-replay' });
    expect(detail.status).toBe('Rejected');
    expect(detail.decisionReason).toContain('presentation attack');
  }, 180_000);

  it("judges sandbox cases by the simulator's own thresholds, not the local ones (a #review case still waits for a person)", async () => {
    const sandbox = await partnerWithToken(test, 'Sandbox Partner', undefined, { sandbox: true });
    const started = await startedCase(test, sandbox, 'SyrianPassport', 'order-7#review');
    await uploadPassportEvidence(test, started.captureToken);
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture })).statusCode).toBe(200);
    await test.worker.runJobs();
    const detail = (await getCase(test, sandbox, started.caseId)).json<Detail>();
    expect(detail).toMatchObject({ status: 'PendingManualReview', faceMatch: { modelName: 'sandbox-simulator', threshold: 0.8 } });
  });

  it('health names nothing missing once the models are loaded', async () => {
    const health = (await test.app.inject({ method: 'GET', url: '/health' })).json<{ checks: { automatedChecks: unknown } }>();
    expect(health.checks.automatedChecks).toEqual({ provider: 'local', ready: true, problems: [] });
  });
});

describeEmbeddedOnly('the local checks without ffmpeg', () => {
  let test: TestApp;

  beforeAll(async () => {
    test = await buildTestApp({ CHECKS_PROVIDER: 'local', CHECKS_FFMPEG_PATH: '/nonexistent/ffmpeg' });
  });
  afterAll(() => test.close());

  it('reports it in health (degraded) and sends live cases to review, never to a pass', async () => {
    const health = await test.app.inject({ method: 'GET', url: '/health' });
    expect(health.json()).toMatchObject({ status: 'degraded', checks: { automatedChecks: { provider: 'local', ready: false, problems: [expect.stringContaining('ffmpeg')] } } });
    const partner = await partnerWithToken(test, 'No Video Tools');
    const started = await startedCase(test, partner, 'SyrianPassport');
    const [face] = SAMPLE_FACES;
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 3 });
    const selfie = await sampleFaceJpeg(face!, { scale: 3, margin: 0.4 });
    for (const [type, bytes, name, contentType] of [
      ['DocumentFront', document.front.bytes, 'passport.jpg', document.front.contentType],
      ['Selfie', selfie, 'selfie.jpg', 'image/jpeg'],
      ['LivenessVideo', Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(4096)]), 'selfie.mp4', 'video/mp4'],
    ] as const) {
      expect((await uploadEvidence(test, started.captureToken, type, bytes, name, contentType)).statusCode).toBe(201);
    }
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture })).statusCode).toBe(200);
    for (let round = 0; round < 4; round += 1) await test.worker.runJobs();
    const detail = (await getCase(test, partner, started.caseId)).json<Detail>();
    expect(detail.status).toBe('PendingManualReview');
    expect(detail.decisionReason).toMatch(/^Manual review: .*ffmpeg/);
  }, 180_000);
});
