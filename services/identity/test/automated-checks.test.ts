import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseEvents, jobs } from '../src/db/schema.js';
import { TransientProviderError, type ChecksProvider } from '../src/domain/checks/checks-provider.js';
import { decideCase } from '../src/domain/checks/decide-case.js';
import { sandboxOutcome, sandboxSimulator } from '../src/domain/checks/sandbox-simulator.js';
import { getCase, partnerWithToken, sha256, submittedCase, type Partner } from './case-helpers.js';
import { buildTestApp, type TestApp } from './helpers.js';

const THRESHOLDS = { ocrConfidence: 0.85, faceSimilarity: 0.8, liveness: 0.8 };
const model = { modelName: 'm', modelVersion: '1' };
const answers = (ocr: number, face: number, live: number, extra: { attack?: boolean; manipulated?: boolean } = {}) => ({
  ocr: { ...model, confidenceScore: ocr, fields: {}, mrzRawText: null, hasManipulationIndicators: extra.manipulated ?? false },
  faceMatch: { ...model, similarityScore: face },
  liveness: { ...model, livenessScore: live, presentationAttackDetected: extra.attack ?? false, attackType: extra.attack ? 'mask' : null },
});

describe('the decision rule', () => {
  it('approves when every score meets its threshold exactly, with the composite score', () => {
    expect(decideCase(answers(0.85, 0.8, 0.8), THRESHOLDS, [])).toMatchObject({ trigger: 'approve', compositeRiskScore: 19 });
  });
  it('sends a score between 0.5 and its threshold to manual review, naming it', () => {
    const decision = decideCase(answers(0.95, 0.79, 0.9), THRESHOLDS, []);
    expect(decision).toMatchObject({ trigger: 'flag-for-review', decisionReason: expect.stringContaining('face similarity 0.79 is below its threshold 0.80') });
  });
  it('rejects a score below 0.5, a presentation attack or manipulation, at a risk of at least 90 with a fraud signal', () => {
    expect(decideCase(answers(0.49, 0.99, 0.99), THRESHOLDS, [])).toMatchObject({ trigger: 'reject', decisionReason: expect.stringContaining('below 0.50') });
    const attack = decideCase(answers(0.99, 0.99, 0.99, { attack: true }), THRESHOLDS, [{ type: 'PresentationAttack', severity: 'high', detail: 'attack (mask).' }]);
    expect(attack).toMatchObject({ trigger: 'reject', compositeRiskScore: 90 });
    expect(decideCase(answers(0.99, 0.99, 0.99, { manipulated: true }), THRESHOLDS, [{ type: 'DocumentManipulation', severity: 'high', detail: 'x' }]).trigger).toBe('reject');
  });
  it('reads the sandbox outcome from the externalReference suffix, approve by default', () => {
    expect(sandboxOutcome('order-1#REJECT')).toBe('reject');
    expect(sandboxOutcome('order-1#review ')).toBe('review');
    expect(sandboxOutcome('order-1')).toBe('approve');
    expect(sandboxOutcome('order#unknown')).toBe('approve');
    expect(sandboxOutcome(null)).toBe('approve');
  });
});

describe('run-checks jobs: sandbox outcomes, live tenants, retries', () => {
  let test: TestApp;
  let sandbox: Partner;
  let live: Partner;
  let flaky: { failuresLeft: number; calls: number; seen: string[] };

  /** A live tenants' provider that fails transiently as often as told, then answers like the simulator. */
  const flakyProvider: ChecksProvider = {
    name: 'flaky',
    async ocr(input) {
      flaky.calls += 1;
      flaky.seen.push(sha256(Buffer.concat(await (await input.front.open()).toArray())));
      if (flaky.failuresLeft > 0) {
        flaky.failuresLeft -= 1;
        throw new TransientProviderError('inference server answered 503');
      }
      return sandboxSimulator.ocr({ ...input, externalReference: 'live' });
    },
    faceMatch: (input) => sandboxSimulator.faceMatch({ ...input, externalReference: 'live' }),
    liveness: (input) => sandboxSimulator.liveness({ ...input, externalReference: 'live' }),
  };

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', CHECKS_RETRY_SCHEDULE_MS: '0,0,0' }, { checksProvider: flakyProvider });
    sandbox = await partnerWithToken(test, 'Sandbox', undefined, { sandbox: true });
    live = await partnerWithToken(test, 'Live');
  });
  afterAll(() => test.close());

  const detailOf = async (partner: Partner, caseId: string) => (await getCase(test, partner, caseId)).json<Record<string, unknown>>();
  const eventsOf = async (caseId: string) => (await test.db.select().from(caseEvents).where(eq(caseEvents.caseId, caseId)).orderBy(asc(caseEvents.occurredAt))).map((row) => JSON.parse(row.payload) as { eventType: string; sandbox: boolean });

  it('approves a sandbox case (#approve, the default) with simulated results, the score and both events', async () => {
    const { caseId } = await submittedCase(test, sandbox, 'order-1');
    expect(await test.worker.runJobs()).toBeGreaterThanOrEqual(1);
    const detail = await detailOf(sandbox, caseId);
    expect(detail).toMatchObject({
      status: 'Approved',
      sandbox: true,
      compositeRiskScore: 5,
      decisionReason: expect.stringMatching(/^Approved: /),
      ocrResult: { modelName: 'sandbox-simulator', confidenceScore: 0.97, mrzIsValid: null, hasManipulationIndicators: false },
      faceMatch: { modelName: 'sandbox-simulator', similarityScore: 0.94, threshold: 0.8, isMatch: true },
      liveness: { modelName: 'sandbox-simulator', livenessScore: 0.96, threshold: 0.8, isLive: true, presentationAttackDetected: false, attackType: null },
      fraudSignals: [],
    });
    expect(detail.completedAt).not.toBeNull();
    expect(JSON.parse((detail.ocrResult as { extractedFieldsJson: string }).extractedFieldsJson)).toMatchObject({ surname: 'SAMPLE', documentNumber: expect.stringMatching(/^N\d{8}$/) });
    const events = await eventsOf(caseId);
    expect(events.map((event) => event.eventType).slice(-2)).toEqual(['verification.automated_checks_running', 'verification.approved']);
    expect(events.every((event) => event.sandbox)).toBe(true);
  });

  it.each([
    ['#reject', 'Rejected', { fraudSignals: [expect.objectContaining({ type: 'PresentationAttack', severity: 'high' })], compositeRiskScore: 90 }],
    ['#review', 'PendingManualReview', { decisionReason: expect.stringContaining('face similarity 0.72'), faceMatch: expect.objectContaining({ isMatch: false }) }],
    ['#fail', 'Failed', { decisionReason: expect.stringContaining('simulated provider failure'), ocrResult: null }],
    ['#expire', 'Expired', { decisionReason: expect.stringContaining('simulated expiry') }],
  ])('ends a sandbox case with the suffix %s as %s', async (suffix, status, expected) => {
    const { caseId } = await submittedCase(test, sandbox, `order-2${suffix}`);
    await test.worker.runJobs();
    expect(await detailOf(sandbox, caseId)).toMatchObject({ status, ...expected });
  });

  it('retries a live provider through transient errors, handing it the stored bytes, and decides once', async () => {
    flaky = { failuresLeft: 2, calls: 0, seen: [] };
    const { caseId } = await submittedCase(test, live, 'live-1');
    for (let round = 0; round < 3; round += 1) await test.worker.runJobs();
    expect(flaky.calls).toBe(3);
    expect(new Set(flaky.seen).size).toBe(1);
    const detail = await detailOf(live, caseId);
    expect(detail).toMatchObject({ status: 'Approved', sandbox: false });
    // Byte for byte: the provider read exactly the uploaded document.
    expect(flaky.seen[0]).toBe((detail.documentEvidence as { sha256Hash: string }[])[0]!.sha256Hash);
    const types = (await eventsOf(caseId)).map((event) => event.eventType);
    expect(types.filter((type) => type === 'verification.automated_checks_running')).toHaveLength(1);
    expect(types.filter((type) => type === 'verification.approved')).toHaveLength(1);
    expect(await test.db.select().from(jobs).where(eq(jobs.subjectId, caseId))).toMatchObject([{ status: 'succeeded', attemptCount: 3 }]);
  });

  it('fails the case when every attempt fails, with the provider error as the reason', async () => {
    flaky = { failuresLeft: 100, calls: 0, seen: [] };
    const { caseId } = await submittedCase(test, live, 'live-2');
    for (let round = 0; round < 4; round += 1) await test.worker.runJobs();
    expect(flaky.calls).toBe(3);
    expect(await detailOf(live, caseId)).toMatchObject({ status: 'Failed', decisionReason: expect.stringContaining('inference server answered 503') });
  });

  it('changes nothing when a second run-checks job meets a decided case', async () => {
    const { caseId } = await submittedCase(test, sandbox, 'order-3');
    await test.worker.runJobs();
    const before = await eventsOf(caseId);
    await test.db.insert(jobs).values({ kind: 'run-checks', subjectId: caseId, payload: JSON.stringify({ caseId }), maxAttempts: 1, nextAttemptAt: new Date(), createdAt: new Date() });
    await test.worker.runJobs();
    expect(await eventsOf(caseId)).toEqual(before);
    expect((await detailOf(sandbox, caseId)).status).toBe('Approved');
  });
});

describe('live tenants without a checks provider', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(() => test.close());

  it('send the case to manual review saying why, and never invent scores', async () => {
    const live = await partnerWithToken(test, 'Live');
    const { caseId } = await submittedCase(test, live, 'order#approve');
    await test.worker.runJobs();
    expect((await getCase(test, live, caseId)).json()).toMatchObject({
      status: 'PendingManualReview',
      sandbox: false,
      compositeRiskScore: null,
      decisionReason: expect.stringContaining('not configured'),
      ocrResult: null,
      faceMatch: null,
      liveness: null,
    });
  });
});

describe('a provider error that no retry can fix', () => {
  let test: TestApp;
  let calls = 0;
  const refusing: ChecksProvider = {
    name: 'refusing',
    async ocr() {
      calls += 1;
      throw new Error('the OCR answer did not match its schema: confidenceScore missing');
    },
    faceMatch: (input) => sandboxSimulator.faceMatch(input),
    liveness: (input) => sandboxSimulator.liveness(input),
  };
  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', CHECKS_RETRY_SCHEDULE_MS: '0,0,0' }, { checksProvider: refusing });
  });
  afterAll(() => test.close());

  it('fails the case at the first attempt, naming the check', async () => {
    const live = await partnerWithToken(test, 'Live');
    const { caseId } = await submittedCase(test, live);
    for (let round = 0; round < 3; round += 1) await test.worker.runJobs();
    expect(calls).toBe(1);
    expect((await getCase(test, live, caseId)).json()).toMatchObject({ status: 'Failed', decisionReason: expect.stringContaining('OCR: the OCR answer did not match its schema') });
  });
});

describe('MRZ check digits and reused document numbers', () => {
  // ICAO 9303 part 4 specimen (TD3) and the same with one check digit altered.
  const VALID_TD3 = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10';
  const BROKEN_TD3 = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C37UTO7408122F1204159ZE184226B<<<<<10';
  // ICAO 9303 part 5 specimen (TD1).
  const VALID_TD1 = 'I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<';
  let test: TestApp;
  let next: { mrzRawText: string | null; documentNumber: string; expiryDate?: string };
  const scripted: ChecksProvider = {
    name: 'scripted',
    async ocr(input) {
      const answer = await sandboxSimulator.ocr({ ...input, externalReference: null });
      return { ...answer, fields: { ...answer.fields, documentNumber: next.documentNumber, ...(next.expiryDate ? { expiryDate: next.expiryDate } : {}) }, mrzRawText: next.mrzRawText };
    },
    faceMatch: (input) => sandboxSimulator.faceMatch({ ...input, externalReference: null }),
    liveness: (input) => sandboxSimulator.liveness({ ...input, externalReference: null }),
  };
  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' }, { checksProvider: scripted });
  });
  afterAll(() => test.close());

  const decide = async (partner: Partner, answer: typeof next) => {
    next = answer;
    const { caseId } = await submittedCase(test, partner);
    await test.worker.runJobs();
    return (await getCase(test, partner, caseId)).json<{ status: string; ocrResult: { mrzIsValid: boolean | null }; fraudSignals: { type: string }[]; caseId: string }>();
  };

  it('approves valid TD3 and TD1 specimens, and reports no MRZ as null', async () => {
    const live = await partnerWithToken(test, 'Live');
    expect(await decide(live, { mrzRawText: VALID_TD3, documentNumber: 'A1' })).toMatchObject({ status: 'Approved', ocrResult: { mrzIsValid: true }, fraudSignals: [] });
    expect(await decide(live, { mrzRawText: VALID_TD1, documentNumber: 'A2' })).toMatchObject({ status: 'Approved', ocrResult: { mrzIsValid: true } });
    expect(await decide(live, { mrzRawText: null, documentNumber: 'A3' })).toMatchObject({ status: 'Approved', ocrResult: { mrzIsValid: null } });
  });

  it('sends a broken check digit to review with a fraud signal', async () => {
    const live = await partnerWithToken(test, 'Live');
    const detail = await decide(live, { mrzRawText: BROKEN_TD3, documentNumber: 'B1' });
    expect(detail).toMatchObject({ status: 'PendingManualReview', ocrResult: { mrzIsValid: false }, fraudSignals: [expect.objectContaining({ type: 'MrzCheckDigitFailure', severity: 'medium' })] });
    expect(detail.fraudSignals[0]).toMatchObject({ detail: expect.stringContaining('documentNumberCheckDigit') });
    expect(await decide(live, { mrzRawText: 'not an mrz at all', documentNumber: 'B2' })).toMatchObject({ ocrResult: { mrzIsValid: false }, status: 'PendingManualReview' });
  });

  it('sends an expired document to review with a DocumentExpired signal; one expiring today still passes, an unknown format is not judged', async () => {
    const live = await partnerWithToken(test, 'Live');
    const expired = await decide(live, { mrzRawText: VALID_TD3, documentNumber: 'E1', expiryDate: '2025-01-12' });
    expect(expired).toMatchObject({
      status: 'PendingManualReview',
      decisionReason: 'Manual review: The document expired on 2025-01-12.',
      fraudSignals: [{ type: 'DocumentExpired', severity: 'medium', detail: 'The document expired on 2025-01-12.' }],
    });
    const today = new Date().toISOString().slice(0, 10);
    expect(await decide(live, { mrzRawText: VALID_TD3, documentNumber: 'E2', expiryDate: today })).toMatchObject({ status: 'Approved', fraudSignals: [] });
    expect(await decide(live, { mrzRawText: VALID_TD3, documentNumber: 'E3', expiryDate: '12/01/2025' })).toMatchObject({ status: 'Approved', fraudSignals: [] });
  });

  it('flags a document number already read on another case of the same tenant, never across tenants', async () => {
    const first = await partnerWithToken(test, 'First');
    const second = await partnerWithToken(test, 'Second');
    expect(await decide(first, { mrzRawText: null, documentNumber: 'N7654321' })).toMatchObject({ status: 'Approved' });
    expect(await decide(second, { mrzRawText: null, documentNumber: 'N7654321' })).toMatchObject({ status: 'Approved', fraudSignals: [] });
    const reused = await decide(first, { mrzRawText: null, documentNumber: 'N7654321' });
    expect(reused).toMatchObject({ status: 'PendingManualReview', fraudSignals: [expect.objectContaining({ type: 'DocumentNumberReused' })] });
  });
});
