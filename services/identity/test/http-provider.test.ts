import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobs } from '../src/db/schema.js';
import { TransientProviderError, type EvidenceFile } from '../src/domain/checks/checks-provider.js';
import { createHttpChecksProvider } from '../src/domain/checks/http-provider.js';
import { CAPTURE, getCase, jpegBytes, mp4Bytes, partnerWithToken, pngBytes, sha256, startedCase, submittedCase, uploadEvidence, type Partner } from './case-helpers.js';
import { startFakeInferenceServer, type FakeInferenceServer, type ReceivedCall, type ReceivedPart } from './fixtures/fake-inference-server.js';
import { buildTestApp, type TestApp } from './helpers.js';

const TIMEOUT_MS = 500;
const ENV = { RATE_LIMIT_PER_MINUTE: '100000', CHECKS_RETRY_SCHEDULE_MS: '0,0,0' };

type Evidence = { evidenceType: string; contentType: string; sha256Hash: string };
type CaseDetail = { status: string; decisionReason: string | null; documentEvidence: Evidence[]; selfieEvidence: Evidence[]; videoEvidence: Evidence[]; [key: string]: unknown };

const partOf = (call: ReceivedCall | undefined, field: string): ReceivedPart | undefined => call?.parts.find((part) => part.field === field);

/** Every attempt the retry schedule allows (three), and one more round to show nothing else runs. */
async function runAllAttempts(test: TestApp): Promise<void> {
  for (let round = 0; round < 4; round += 1) await test.worker.runJobs();
}

async function attemptsOf(test: TestApp, caseId: string): Promise<number> {
  const [job] = await test.db.select().from(jobs).where(eq(jobs.subjectId, caseId));
  return job!.attemptCount;
}

/** A SyrianNationalId case with all four pieces of evidence (the back included), submitted. */
async function submittedNationalIdCase(test: TestApp, partner: Partner) {
  const started = await startedCase(test, partner, 'SyrianNationalId');
  for (const [type, bytes] of [
    ['DocumentFront', jpegBytes()],
    ['DocumentBack', jpegBytes(3000)],
    ['Selfie', pngBytes()],
    ['LivenessVideo', mp4Bytes()],
  ] as const) {
    expect((await uploadEvidence(test, started.captureToken, type, bytes)).statusCode).toBe(201);
  }
  expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture })).statusCode).toBe(200);
  return started;
}

describe('the HTTP checks provider, over the whole app, against a fake inference server', () => {
  let fake: FakeInferenceServer;
  let provider: ReturnType<typeof createHttpChecksProvider>;
  let test: TestApp;
  let live: Partner;

  beforeAll(async () => {
    fake = await startFakeInferenceServer();
    provider = createHttpChecksProvider({ ...fake.urls, timeoutMs: TIMEOUT_MS });
    test = await buildTestApp(ENV, { checksProvider: provider });
    live = await partnerWithToken(test, 'Live');
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    await test.close();
    await provider.close();
    await fake.close();
  });

  const detailOf = async (caseId: string) => (await getCase(test, live, caseId)).json<CaseDetail>();

  it('approves with the scores the server chose, having sent it exactly the uploaded bytes', async () => {
    const fields = { surname: 'KHOURY', documentNumber: 'N98765432' };
    fake.plan('ocr', { json: { ...fake.healthy('ocr'), confidenceScore: 0.88, fields, mrzRawText: undefined, unexpectedKey: 'dropped' } });
    fake.plan('face-match', { json: { ...fake.healthy('face-match'), similarityScore: 0.86 } });
    fake.plan('liveness', { json: { modelName: 'fake-liveness', modelVersion: '0.9.3', livenessScore: 0.9, presentationAttackDetected: false } });
    const { caseId } = await submittedCase(test, live, 'live-approve');
    await runAllAttempts(test);

    const detail = await detailOf(caseId);
    expect(detail).toMatchObject({
      status: 'Approved',
      ocrResult: { modelName: 'fake-ocr', modelVersion: '3.2.1', confidenceScore: 0.88, mrzRawText: null, hasManipulationIndicators: false },
      faceMatch: { modelName: 'fake-face', similarityScore: 0.86, isMatch: true },
      liveness: { modelName: 'fake-liveness', livenessScore: 0.9, attackType: null, isLive: true },
      fraudSignals: [],
    });
    expect(JSON.parse((detail.ocrResult as { extractedFieldsJson: string }).extractedFieldsJson)).toEqual(fields);

    const front = detail.documentEvidence.find((evidence) => evidence.evidenceType === 'DocumentFront')!;
    const [ocr] = fake.received('ocr');
    expect(fake.received('ocr')).toHaveLength(1);
    expect(ocr!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(ocr!.parts).toEqual([
      { field: 'documentType', value: 'SyrianPassport' },
      { field: 'front', fileName: 'front.jpg', contentType: 'image/jpeg', sizeBytes: 2048, sha256: front.sha256Hash },
    ]);
    const [faceMatch] = fake.received('face-match');
    expect(faceMatch!.parts).toEqual([
      expect.objectContaining({ field: 'document', contentType: 'image/jpeg', sha256: front.sha256Hash }),
      expect.objectContaining({ field: 'selfie', fileName: 'selfie.png', contentType: 'image/png', sha256: detail.selfieEvidence[0]!.sha256Hash }),
    ]);
    // The side the case asked the user to turn to travels with the video, for the server to check.
    expect(fake.received('liveness')[0]!.parts).toEqual([
      { field: 'headTurnSide', value: expect.stringMatching(/^(left|right)$/) },
      expect.objectContaining({ field: 'video', fileName: 'video.mp4', contentType: 'video/mp4', sha256: detail.videoEvidence[0]!.sha256Hash }),
      expect.objectContaining({ field: 'document', sha256: detail.documentEvidence[0]!.sha256Hash }),
    ]);
  });

  it('sends the back of a SyrianNationalId with its front to OCR', async () => {
    const { caseId } = await submittedNationalIdCase(test, live);
    await runAllAttempts(test);
    const detail = await detailOf(caseId);
    // The fake's healthy OCR answer carries ICAO's specimen MRZ, whose check digits add up.
    expect(detail).toMatchObject({ status: 'Approved', ocrResult: { mrzIsValid: true } });
    const hashOf = (type: string) => detail.documentEvidence.find((evidence) => evidence.evidenceType === type)!.sha256Hash;
    const ocr = fake.received('ocr')[0];
    expect(partOf(ocr, 'documentType')).toEqual({ field: 'documentType', value: 'SyrianNationalId' });
    expect(partOf(ocr, 'front')).toMatchObject({ sha256: hashOf('DocumentFront') });
    expect(partOf(ocr, 'back')).toMatchObject({ fileName: 'back.jpg', contentType: 'image/jpeg', sizeBytes: 3000, sha256: hashOf('DocumentBack') });
    expect(hashOf('DocumentFront')).not.toBe(hashOf('DocumentBack'));
  });

  it('keeps the OCR answer, Arabic fields and fields to confirm, when face match sends a national ID case to a person', async () => {
    const fields = { firstNameAr: 'محمد', surnameAr: 'الخوري', nationalNumber: '01002572170' };
    fake.plan('ocr', { json: { ...fake.healthy('ocr'), fields, fieldsToConfirm: ['fatherNameAr', 'civilRegistryAr'] } });
    fake.plan('face-match', { status: 422, json: { code: 'MANUAL_REVIEW_REQUIRED', detail: 'no face found in the document photo' } });
    const { caseId } = await submittedNationalIdCase(test, live);
    await runAllAttempts(test);
    const detail = await detailOf(caseId);
    expect(detail).toMatchObject({ status: 'PendingManualReview', decisionReason: expect.stringContaining('no face found'), ocrResult: { modelName: 'fake-ocr', mrzIsValid: true }, faceMatch: null });
    expect(JSON.parse((detail.ocrResult as { extractedFieldsJson: string }).extractedFieldsJson)).toEqual({ ...fields, fieldsToConfirm: 'fatherNameAr,civilRegistryAr' });
  });

  it('rejects a case when the liveness server reports a presentation attack', async () => {
    fake.plan('liveness', { json: { ...fake.healthy('liveness'), livenessScore: 0.97, presentationAttackDetected: true, attackType: 'mask' } });
    const { caseId } = await submittedCase(test, live);
    await runAllAttempts(test);
    expect(await detailOf(caseId)).toMatchObject({
      status: 'Rejected',
      compositeRiskScore: 90,
      liveness: { presentationAttackDetected: true, attackType: 'mask', isLive: false },
      fraudSignals: [expect.objectContaining({ type: 'PresentationAttack', severity: 'high' })],
    });
  });

  it('sends a case to manual review when a score falls between 0.5 and its threshold', async () => {
    fake.plan('face-match', { json: { ...fake.healthy('face-match'), similarityScore: 0.65 } });
    const { caseId } = await submittedCase(test, live);
    await runAllAttempts(test);
    expect(await detailOf(caseId)).toMatchObject({ status: 'PendingManualReview', decisionReason: expect.stringContaining('face similarity 0.65'), faceMatch: { isMatch: false } });
  });

  it('retries through two 503s and approves at the third attempt', async () => {
    fake.plan('ocr', { status: 503, json: { error: 'warming up' } }, { status: 503, rawBody: 'busy' });
    const { caseId } = await submittedCase(test, live);
    await runAllAttempts(test);
    expect(await detailOf(caseId)).toMatchObject({ status: 'Approved' });
    expect(fake.received('ocr')).toHaveLength(3);
    expect(fake.received('face-match')).toHaveLength(1);
    expect(await attemptsOf(test, caseId)).toBe(3);
  });

  it('fails the case after three attempts when every answer is a 503, naming it', async () => {
    fake.plan('ocr', ...Array.from({ length: 5 }, () => ({ status: 503 })));
    const { caseId } = await submittedCase(test, live);
    await runAllAttempts(test);
    expect(await detailOf(caseId)).toMatchObject({ status: 'Failed', decisionReason: 'Automated checks failed after 3 attempt(s): OCR: inference server answered 503', ocrResult: null });
    expect(fake.received('ocr')).toHaveLength(3);
    expect(fake.received('face-match')).toHaveLength(0);
  });

  it('fails the case after three attempts when every answer comes later than the timeout', async () => {
    fake.plan('face-match', ...Array.from({ length: 3 }, () => ({ delayMs: TIMEOUT_MS * 3 })));
    const { caseId } = await submittedCase(test, live);
    await runAllAttempts(test);
    expect(await detailOf(caseId)).toMatchObject({ status: 'Failed', decisionReason: expect.stringContaining(`face match: timed out after ${TIMEOUT_MS} ms`) });
    expect(fake.received('face-match')).toHaveLength(3);
    expect(await attemptsOf(test, caseId)).toBe(3);
  });

  it.each([
    ['an OCR answer without confidenceScore', 'ocr', { json: ocrAnswerWithout('confidenceScore') }, 'failed after 1 attempt(s): OCR answer did not match its schema: confidenceScore: Invalid input: expected number'],
    ['a similarity score above 1', 'face-match', { json: { modelName: 'f', modelVersion: '1', similarityScore: 1.7 } }, 'face match answer did not match its schema: similarityScore: Too big'],
    ['an answer that is not JSON', 'liveness', { rawBody: '<html>oops</html>' }, 'failed after 1 attempt(s): liveness answer was not JSON'],
    ['a 400', 'liveness', { status: 400, json: { error: 'video too short' } }, 'failed after 1 attempt(s): liveness request was refused: inference server answered 400'],
  ] as const)('fails the case at the first attempt on %s', async (_name, route, planned, reason) => {
    fake.plan(route, planned);
    const { caseId } = await submittedCase(test, live);
    await runAllAttempts(test);
    const detail = await detailOf(caseId);
    expect(detail).toMatchObject({ status: 'Failed', decisionReason: expect.stringContaining(reason) });
    expect(detail.decisionReason).toMatch(/^Automated checks failed after 1 attempt\(s\)/);
    expect(fake.received(route)).toHaveLength(1);
    expect(await attemptsOf(test, caseId)).toBe(1);
  });
});

/** A valid OCR answer less one key; a plain function, because it.each reads its table before any server starts. */
function ocrAnswerWithout(key: string): Record<string, unknown> {
  const answer: Record<string, unknown> = { modelName: 'fake-ocr', modelVersion: '1', confidenceScore: 0.9, fields: {}, hasManipulationIndicators: false };
  delete answer[key];
  return answer;
}

describe('the HTTP checks provider when nothing listens at its URLs', () => {
  let provider: ReturnType<typeof createHttpChecksProvider>;
  let test: TestApp;

  beforeAll(async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;
    provider = createHttpChecksProvider({ ocrUrl: `${base}/ocr`, faceMatchUrl: `${base}/face-match`, livenessUrl: `${base}/liveness`, timeoutMs: TIMEOUT_MS });
    test = await buildTestApp(ENV, { checksProvider: provider });
  });
  afterAll(async () => {
    await test.close();
    await provider.close();
  });

  it('fails the case after three attempts, saying the connection failed without naming the host', async () => {
    const live = await partnerWithToken(test, 'Live');
    const { caseId } = await submittedCase(test, live);
    await runAllAttempts(test);
    const detail = (await getCase(test, live, caseId)).json<CaseDetail>();
    expect(detail).toMatchObject({ status: 'Failed', decisionReason: 'Automated checks failed after 3 attempt(s): OCR: could not reach the inference server (ECONNREFUSED)' });
    expect(await attemptsOf(test, caseId)).toBe(3);
  });
});

/** A port that was free a moment ago and is closed now: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
}

describe('the HTTP checks provider called directly', () => {
  let fake: FakeInferenceServer;
  let provider: ReturnType<typeof createHttpChecksProvider>;
  const bytes = jpegBytes();
  const evidence = (overrides: Partial<EvidenceFile> = {}): EvidenceFile => ({
    evidenceType: 'DocumentFront',
    contentType: 'image/jpeg',
    sizeBytes: bytes.length,
    sha256Hex: sha256(bytes),
    open: async () => Readable.from([bytes]),
    ...overrides,
  });
  const ocr = (front = evidence()) => provider.ocr({ documentType: 'SyrianPassport', front, back: null, externalReference: null });

  beforeAll(async () => {
    fake = await startFakeInferenceServer();
    provider = createHttpChecksProvider({ ...fake.urls, timeoutMs: TIMEOUT_MS });
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    await provider.close();
    await fake.close();
  });

  it('treats 429 and 408 as transient, and other 4xx as final', async () => {
    fake.plan('ocr', { status: 429 }, { status: 408 }, { status: 422 });
    await expect(ocr()).rejects.toThrow(new TransientProviderError('OCR: inference server answered 429'));
    await expect(ocr()).rejects.toBeInstanceOf(TransientProviderError);
    const final = await ocr().catch((error: unknown) => error);
    expect(final).not.toBeInstanceOf(TransientProviderError);
    expect(final).toMatchObject({ message: 'OCR request was refused: inference server answered 422' });
  });

  it('refuses an answer over 1 MB without reading it all', async () => {
    fake.plan('ocr', { json: { ...fake.healthy('ocr'), fields: { padding: 'x'.repeat(2 * 1024 * 1024) } } });
    const error = await ocr().catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(TransientProviderError);
    expect(error).toMatchObject({ message: 'OCR answer was larger than 1048576 bytes' });
  });

  it('retries evidence that cannot be read, naming its type and not its storage key', async () => {
    const missing = evidence({ open: () => Promise.reject(Object.assign(new Error('ENOENT: /srv/evidence/secret-key'), { code: 'ENOENT' })) });
    await expect(ocr(missing)).rejects.toThrow(new TransientProviderError('OCR: could not read the DocumentFront evidence (ENOENT)'));
    expect(fake.received('ocr')).toHaveLength(0);
  });

  it('reads a liveness answer without attackType as null and drops keys it does not know', async () => {
    fake.plan('liveness', { json: { modelName: 'l', modelVersion: '2', livenessScore: 0.5, presentationAttackDetected: false, debug: { frames: 12 } } });
    const video = evidence({ evidenceType: 'LivenessVideo', contentType: 'video/x-unknown' });
    const document = evidence({ evidenceType: 'DocumentFront', contentType: 'image/jpeg' });
    expect(await provider.liveness({ video, document, externalReference: null })).toEqual({ modelName: 'l', modelVersion: '2', livenessScore: 0.5, presentationAttackDetected: false, attackType: null });
    // A content type without a known extension is sent under the bare field name; the document rides along for the portrait.
    expect(fake.received('liveness')[0]!.parts).toEqual([
      expect.objectContaining({ field: 'video', fileName: 'video', contentType: 'video/x-unknown', sha256: sha256(bytes) }),
      expect.objectContaining({ field: 'document', fileName: 'document.jpg', contentType: 'image/jpeg' }),
    ]);
  });
});
