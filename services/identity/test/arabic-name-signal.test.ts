import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationCases } from '../src/db/schema.js';
import type { ChecksProvider } from '../src/domain/checks/checks-provider.js';
import { fraudSignalsOf } from '../src/domain/checks/decide-case.js';
import { compareOcrWithMrz } from '../src/domain/review/mrz-comparison.js';
import { CAPTURE, createCase, getCase, jpegBytes, mp4Bytes, partnerWithToken, pngBytes, uploadEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

const model = { modelName: 'm', modelVersion: '1' };
const liveness = { ...model, livenessScore: 0.95, presentationAttackDetected: false, attackType: null };
const passport = (fields: Record<string, string>) => ({ ...model, confidenceScore: 0.95, fields, mrzRawText: null, hasManipulationIndicators: false });
const now = new Date('2026-11-28T12:00:00Z');

describe('Arabic/Latin name agreement on a passport', () => {
  it('raises name_mismatch with both spellings when the Arabic names clearly contradict the MRZ', () => {
    const signals = fraudSignalsOf(passport({ surname: 'HADDAD', givenNames: 'KHALED', surnameAr: 'الشامي', firstNameAr: 'محمد' }), liveness, now);
    const mismatches = signals.filter((signal) => signal.type === 'name_mismatch');
    expect(mismatches).toHaveLength(2);
    expect(mismatches[0]).toMatchObject({ severity: 'medium', detail: expect.stringContaining('محمد') });
    expect(mismatches[0]!.detail).toContain('KHALED');
    expect(mismatches[1]!.detail).toContain('الشامي');
    expect(mismatches[1]!.detail).toContain('HADDAD');
  });
  it('raises nothing for the usual transliterations, abbreviations included', () => {
    for (const [firstNameAr, givenNames, surnameAr, surname] of [
      ['محمد', 'MHD SAMER', 'درويش', 'DARWICH'],
      ['فاطمة', 'FATMEH', 'الحلبي', 'ALHALABI'],
      ['عبد الرحمن', 'ABDURRAHMAN', 'قصاب', 'QASSAB'],
    ]) {
      expect(fraudSignalsOf(passport({ firstNameAr: firstNameAr!, givenNames: givenNames!, surnameAr: surnameAr!, surname: surname! }), liveness, now)).toEqual([]);
    }
  });
  it('raises nothing when a comparison is uncertain or a side is missing', () => {
    expect(fraudSignalsOf(passport({ firstNameAr: 'وائل', givenNames: 'ALI', surname: 'NASR' }), liveness, now)).toEqual([]);
    expect(fraudSignalsOf(passport({ surname: 'NASR', givenNames: 'OMAR' }), liveness, now)).toEqual([]);
  });
});

describe("a national ID case against the partner's Latin name", () => {
  let test: TestApp;
  let partner: Partner;
  /** Answers as the local reader does for a national ID: Arabic fields only, no MRZ. */
  const arabicFront: ChecksProvider = {
    name: 'arabic-front',
    ocr: async () => ({ ...model, confidenceScore: 0.95, fields: { firstNameAr: 'محمد', surnameAr: 'الحلبي', nationalNumber: '01234567890' }, fieldsToConfirm: ['fatherNameAr'], mrzRawText: null, hasManipulationIndicators: false }),
    faceMatch: async () => ({ ...model, similarityScore: 0.95 }),
    liveness: async () => liveness,
  };

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' }, { checksProvider: arabicFront });
    partner = await partnerWithToken(test, 'Damascus Bank');
  });
  afterAll(() => test.close());

  async function decidedCase(applicantName: { givenNames: string; surname: string }) {
    const created = await createCase(test, partner, { documentType: 'SyrianNationalId', applicantName });
    expect(created.statusCode).toBe(201);
    const { caseId, sessionToken } = created.json<{ caseId: string; sessionToken: string }>();
    const exchanged = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${sessionToken}` } });
    const { captureToken } = exchanged.json<{ captureToken: string }>();
    for (const [type, bytes] of [['DocumentFront', jpegBytes()], ['DocumentBack', jpegBytes()], ['Selfie', pngBytes()], ['LivenessVideo', mp4Bytes()]] as const) {
      expect((await uploadEvidence(test, captureToken, type, bytes)).statusCode).toBe(201);
    }
    expect((await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: { authorization: `Bearer ${captureToken}` } })).statusCode).toBe(200);
    await test.worker.runJobs();
    return (await getCase(test, partner, caseId)).json<{ id: string; status: string; decisionReason: string; fraudSignals: { type: string; severity: string; detail: string }[] }>();
  }

  it('raises name_mismatch with both spellings and sends the case to a person when the Arabic name contradicts the partner’s', async () => {
    const detail = await decidedCase({ givenNames: 'Khaled Omar', surname: 'Haddad' });
    expect(detail.status).toBe('PendingManualReview');
    const mismatches = detail.fraudSignals.filter((signal) => signal.type === 'name_mismatch');
    expect(mismatches.map((signal) => signal.detail).sort()).toEqual([
      "The Arabic first name محمد does not match the Latin first name Khaled in the partner's record.",
      "The Arabic surname الحلبي does not match the Latin surname Haddad in the partner's record.",
    ]);
    expect(mismatches.every((signal) => signal.severity === 'medium')).toBe(true);
    expect(detail.decisionReason).toContain('Khaled');
  });

  it('lists the fields the reader left out, and a correction that fills one in confirms it', async () => {
    const { id } = await decidedCase({ givenNames: 'Khaled', surname: 'Haddad' });
    const ocrOf = async () => (await getCase(test, partner, id)).json<{ ocrResult: { fieldsToConfirm: string[]; extractedFieldsJson: string } }>().ocrResult;
    expect((await ocrOf()).fieldsToConfirm).toEqual(['fatherNameAr']);
    const patch = (fields: Record<string, string>) => test.app.inject({ method: 'PATCH', url: `${BASE}/verifications/${id}/ocr-fields`, headers: partner.headers, payload: { fields } });
    // The list is no field of the document, and a field neither read nor named stays unknown.
    expect((await patch({ fieldsToConfirm: '' })).statusCode).toBe(400);
    expect((await patch({ motherNameAr: 'فاطمة' })).statusCode).toBe(400);
    const confirmed = await patch({ fatherNameAr: 'خالد' });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json<{ fieldsToConfirm: string[] }>().fieldsToConfirm).toEqual([]);
    expect(JSON.parse((await ocrOf()).extractedFieldsJson)).toEqual({ firstNameAr: 'محمد', surnameAr: 'الحلبي', nationalNumber: '01234567890', fatherNameAr: 'خالد' });
  });

  it('approves when the partner spells the same name the usual way', async () => {
    const detail = await decidedCase({ givenNames: 'Mhd Samer', surname: 'Al-Halabi' });
    expect(detail).toMatchObject({ status: 'Approved', fraudSignals: [] });
  });

  it('forgets the partner’s name when the case is redacted', async () => {
    const { id } = await decidedCase({ givenNames: 'Mhd Samer', surname: 'Al-Halabi' });
    const stored = () => test.db.select({ givenNames: verificationCases.applicantGivenNames, surname: verificationCases.applicantSurname }).from(verificationCases).where(eq(verificationCases.id, id));
    expect(await stored()).toEqual([{ givenNames: 'Mhd Samer', surname: 'Al-Halabi' }]);
    expect((await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${id}/redact`, headers: partner.headers })).statusCode).toBe(202);
    await test.worker.runJobs();
    expect(await stored()).toEqual([{ givenNames: null, surname: null }]);
  });

  it('refuses a name that is not in Latin letters, or an unknown key, with a clear 400', async () => {
    for (const applicantName of [{ givenNames: 'محمد', surname: 'Haddad' }, { givenNames: 'Khaled', surname: ' ' }, { givenNames: 'Khaled', surname: 'Haddad', middle: 'X' }]) {
      const refused = await createCase(test, partner, { documentType: 'SyrianNationalId', applicantName });
      expect(refused.statusCode).toBe(400);
      expect(refused.headers['content-type']).toContain('application/problem+json');
    }
    const arabic = await createCase(test, partner, { documentType: 'SyrianNationalId', applicantName: { givenNames: 'محمد', surname: 'Haddad' } });
    expect(arabic.json<{ detail: string }>().detail).toContain('Latin letters');
  });

  it('treats the same key with another applicant name as another body (409), the same one as a replay', async () => {
    const headers = { 'idempotency-key': 'applicant-name-key' };
    const body = { documentType: 'SyrianNationalId', applicantName: { givenNames: 'Samer', surname: 'Darwish' } };
    const first = await createCase(test, partner, body, headers);
    expect(first.statusCode).toBe(201);
    expect((await createCase(test, partner, body, headers)).json<{ caseId: string }>().caseId).toBe(first.json<{ caseId: string }>().caseId);
    expect((await createCase(test, partner, { ...body, applicantName: { givenNames: 'Samer', surname: 'Haddad' } }, headers)).statusCode).toBe(409);
  });
});

describe("the reviewer's field rows", () => {
  it('list each field to confirm as an empty row and never the list itself', () => {
    const rows = compareOcrWithMrz(JSON.stringify({ firstNameAr: 'سامر', fieldsToConfirm: 'fatherNameAr,civilRegistryAr' }), null, now);
    expect(rows).toEqual([
      { field: 'firstNameAr', ocr: 'سامر', mrz: null, matches: null },
      { field: 'fatherNameAr', ocr: null, mrz: null, matches: null },
      { field: 'civilRegistryAr', ocr: null, mrz: null, matches: null },
    ]);
  });
});
