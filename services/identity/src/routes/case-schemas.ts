import { z } from 'zod';
import { CASE_STATUSES, DOCUMENT_TYPES, EVIDENCE_TYPES } from '../domain/cases/case-states.js';

/** One zod schema per shape of the spec: validation, handler types and the OpenAPI document. */
const timestamp = z.string().meta({ description: 'ISO 8601, UTC', examples: ['2026-11-23T10:15:00.000Z'] });

export const caseStatusSchema = z.enum(CASE_STATUSES).meta({ id: 'CaseStatus' });
export const documentTypeSchema = z.enum(DOCUMENT_TYPES).meta({ id: 'DocumentType' });
export const evidenceTypeSchema = z.enum(EVIDENCE_TYPES).meta({ id: 'EvidenceType' });

export const evidenceRecordSchema = z
  .object({
    id: z.uuid(),
    evidenceType: evidenceTypeSchema,
    contentType: z.string().meta({ description: 'Sniffed from the bytes at upload', examples: ['image/jpeg'] }),
    fileSizeBytes: z.number().int(),
    originalFileName: z.string(),
    sha256Hash: z.string().meta({ description: 'Lowercase hex SHA-256 of the file' }),
    uploadedAt: timestamp,
  })
  .meta({ id: 'EvidenceRecord' });

export const ocrResultSchema = z
  .object({
    modelName: z.string(),
    modelVersion: z.string(),
    confidenceScore: z.number(),
    extractedFieldsJson: z.string().meta({ description: 'A JSON object mapping field names to extracted values, as text. Its key fieldsToConfirm (when present) is not a document field: it repeats the list below, comma-separated.' }),
    fieldsToConfirm: z.array(z.string()).meta({
      description:
        'Fields the reader was not confident of and left out (on a Syrian national ID: its Arabic names, place, registry, date or number). A person reads them off the document; a correction (PATCH …/ocr-fields) may fill them in, which removes them from this list.',
    }),
    mrzIsValid: z.boolean().nullable(),
    mrzRawText: z.string().nullable(),
    hasManipulationIndicators: z.boolean(),
    inferenceTimestamp: timestamp,
    inferenceLatencyMs: z.number().int(),
  })
  .meta({
    id: 'OcrResult',
    description:
      'With the on-CPU provider (modelName tesseract…): the MRZ read with ICAO 9303 check-digit validation; names count only when the printed page confirms them. hasManipulationIndicators means the printed zone contradicts a valid MRZ; it is not document-authenticity detection.',
  });

const faceMatchSchema = z
  .object({
    modelName: z.string(),
    modelVersion: z.string(),
    similarityScore: z.number(),
    threshold: z.number(),
    isMatch: z.boolean(),
    inferenceTimestamp: timestamp,
    inferenceLatencyMs: z.number().int(),
  })
  .meta({ id: 'FaceMatch', description: 'A face-similarity score between the document portrait and the selfie. With the on-CPU provider it is uncalibrated: no error rates are claimed.' });

const livenessSchema = z
  .object({
    modelName: z.string(),
    modelVersion: z.string(),
    livenessScore: z.number(),
    threshold: z.number(),
    isLive: z.boolean(),
    presentationAttackDetected: z.boolean(),
    attackType: z.string().nullable(),
    inferenceTimestamp: timestamp,
    inferenceLatencyMs: z.number().int(),
  })
  .meta({
    id: 'Liveness',
    description:
      'With the on-CPU provider: basic liveness signals from the video (one face throughout, a blink, a head turn, a non-rigid face, the face matching the document); presentationAttackDetected with attackType suspected-photo-replay when the video looks like a still photo. Not certified presentation-attack detection (ISO 30107-3).',
  });

const fraudSignalSchema = z
  .object({
    type: z.string().meta({
      description:
        'What was found. high (rejects): PresentationAttack, DocumentManipulation. medium (a person reviews): MrzCheckDigitFailure, DocumentNumberReused (already read on another case of this tenant), DocumentExpired. More types may be added: treat an unknown one as needing review.',
      examples: ['PresentationAttack', 'DocumentExpired'],
    }),
    severity: z.enum(['low', 'medium', 'high']),
    detail: z.string(),
    detectedAt: timestamp,
  })
  .meta({ id: 'FraudSignal' });

/** A reviewer's verdict on a case in manual review. */
export const reviewVerdictSchema = z.enum(['Approved', 'Rejected']).meta({ id: 'ReviewVerdict' });

const reviewDecisionSchema = z
  .object({ id: z.uuid(), reviewerId: z.uuid(), decision: reviewVerdictSchema, reason: z.string(), decidedAt: timestamp })
  .meta({ id: 'ReviewDecision' });

/** The end user's consent as the case records it; null until given. */
export const consentSchema = z
  .object({
    givenAt: timestamp,
    language: z.string().meta({ description: 'The language the consent was shown in: ar, en, ckb or kmr' }),
    userAgent: z.string().nullable().meta({ description: "The end user's browser as it named itself" }),
  })
  .nullable()
  .meta({ id: 'CaptureConsent' });

export const caseDetailSchema = z
  .object({
    id: z.uuid(),
    externalReference: z.string().nullable(),
    status: caseStatusSchema,
    documentType: documentTypeSchema,
    sandbox: z.boolean().meta({ description: "true for a sandbox tenant's case, decided by the built-in simulator" }),
    compositeRiskScore: z
      .number()
      .nullable()
      .meta({ description: '0 (no risk) to 100, null until the automated checks have scored the case: round(100 × (1 − (0.2·ocr + 0.4·face + 0.4·liveness))), at least 90 with a high-severity fraud signal' }),
    decisionReason: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    completedAt: timestamp.nullable(),
    redactionRequestedAt: timestamp.nullable().meta({ description: 'When redaction was asked for (by the partner or the retention policy); from then on evidence downloads answer 410' }),
    redactedAt: timestamp.nullable().meta({
      description: 'When the evidence and personal data were destroyed (POST /verifications/{caseId}/redact or the retention policy); null until then. Once set, ocrResult.fields is {} and mrzRawText null, and evidence downloads answer 410.',
    }),
    session: z.object({ id: z.uuid(), expiresAt: timestamp, isUsed: z.boolean(), usedAt: timestamp.nullable() }).nullable(),
    returnUrl: z.string().nullable().meta({ description: 'Where the hosted capture page sends the end user after submit, as given at creation' }),
    consent: consentSchema,
    documentEvidence: z.array(evidenceRecordSchema).meta({ description: 'DocumentFront and DocumentBack; the current upload of each type' }),
    selfieEvidence: z.array(evidenceRecordSchema),
    videoEvidence: z.array(evidenceRecordSchema),
    ocrResult: ocrResultSchema.nullable(),
    faceMatch: faceMatchSchema.nullable(),
    liveness: livenessSchema.nullable(),
    fraudSignals: z.array(fraudSignalSchema),
    reviewDecisions: z.array(reviewDecisionSchema),
  })
  .meta({ id: 'VerificationCase' });

export const caseListItemSchema = z
  .object({
    id: z.uuid(),
    externalReference: z.string().nullable(),
    status: caseStatusSchema,
    documentType: documentTypeSchema,
    compositeRiskScore: z.number().nullable(),
    createdAt: timestamp,
    completedAt: timestamp.nullable(),
  })
  .meta({ id: 'VerificationCaseListItem' });

export const caseIdParams = z.object({ caseId: z.uuid({ error: 'must be a case id (a UUID)' }) });

/** One entry of a case's timeline (the partner's history, the console's case view). */
export const caseHistoryEntrySchema = z.object({
  at: z.iso.datetime({ offset: true }),
  action: z.string(),
  actor: z.string(),
  fromStatus: caseStatusSchema.nullable(),
  toStatus: caseStatusSchema.nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Where the hosted capture page sends the end user after submit: https only (the query carries
 * the case id), no credentials in it (they would sit in the browser's history), and plain
 * http://localhost only where private webhook targets are allowed (development).
 */
/** A name part in Latin letters (accents, spaces, hyphens and apostrophes allowed), as a passport's MRZ or a partner's records spell it. */
const latinNamePart = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[\p{Script=Latin}][\p{Script=Latin}\p{M} '.-]*$/u, 'must be written in Latin letters (the Arabic name is read from the document)');

export const applicantNameSchema = z
  .strictObject({
    givenNames: latinNamePart.meta({ description: 'Given names in Latin letters, first name first' }),
    surname: latinNamePart,
  })
  .meta({
    description:
      "The applicant's name in Latin letters as the partner holds it. When the document's Arabic first name or surname clearly differs from it (consonant skeletons and common spellings compared), the case gets a name_mismatch fraud signal and goes to a person; an uncertain comparison raises nothing.",
  });

export function returnUrlSchema(allowLocalhost: boolean) {
  return z
    .string()
    .max(500, 'must be at most 500 characters')
    .superRefine((value, context) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        context.addIssue({ code: 'custom', message: 'must be an absolute https:// URL' });
        return;
      }
      if (url.username !== '' || url.password !== '') context.addIssue({ code: 'custom', message: 'must not carry credentials (user:password@)' });
      const localHttp = url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname);
      if (url.protocol === 'https:' || (localHttp && allowLocalhost)) return;
      context.addIssue({
        code: 'custom',
        message: localHttp ? 'http://localhost is allowed only in development (WEBHOOK_ALLOW_PRIVATE_TARGETS=true); use https://' : 'must be an https:// URL',
      });
    })
    .meta({ description: 'https:// (at most 500 characters, no credentials); after submit the capture page sends the user here with ?caseId=…&status=submitted' });
}
