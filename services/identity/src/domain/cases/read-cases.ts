import { NotFoundError } from '@svc/problem-json';
import { fieldsToConfirmIn } from './fields-to-confirm.js';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { preparedPerDatabase } from '../../db/prepared.js';
import type { PgTable } from 'drizzle-orm/pg-core';
import { caseSessions, evidence, faceMatchResults, fraudSignals, livenessResults, ocrResults, reviewDecisions, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import type { CaseStatus, DocumentType, EvidenceType } from './case-states.js';

export const iso = (value: Date | null) => (value ? value.toISOString() : null);

export type EvidenceRow = typeof evidence.$inferSelect;
export type OcrRow = typeof ocrResults.$inferSelect;

export function toEvidenceRecord(row: EvidenceRow) {
  return {
    id: row.id,
    evidenceType: row.evidenceType as EvidenceType,
    contentType: row.contentType,
    fileSizeBytes: row.fileSizeBytes,
    originalFileName: row.originalFileName,
    sha256Hash: row.sha256Hash,
    uploadedAt: row.uploadedAt.toISOString(),
  };
}

export function toOcrResult(row: OcrRow) {
  return {
    modelName: row.modelName,
    modelVersion: row.modelVersion,
    confidenceScore: row.confidenceScore,
    extractedFieldsJson: row.extractedFieldsJson,
    fieldsToConfirm: fieldsToConfirmIn(row.extractedFieldsJson),
    mrzIsValid: row.mrzIsValid,
    mrzRawText: row.mrzRawText,
    hasManipulationIndicators: row.hasManipulationIndicators,
    inferenceTimestamp: row.inferenceTimestamp.toISOString(),
    inferenceLatencyMs: row.inferenceLatencyMs,
  };
}

const EVIDENCE_SECTION: Record<EvidenceType, 'documentEvidence' | 'selfieEvidence' | 'videoEvidence'> = {
  DocumentFront: 'documentEvidence',
  DocumentBack: 'documentEvidence',
  Selfie: 'selfieEvidence',
  LivenessVideo: 'videoEvidence',
};

/** The evidence a case holds now: the newest upload of each type (replaced ones stay in the audit trail). */
export async function currentEvidence(db: IdentityExecutor, caseId: string): Promise<EvidenceRow[]> {
  return db
    .select()
    .from(evidence)
    .where(and(eq(evidence.caseId, caseId), isNull(evidence.replacedAt)))
    .orderBy(evidence.uploadedAt, evidence.id);
}

type FaceMatchRow = typeof faceMatchResults.$inferSelect;
type LivenessRow = typeof livenessResults.$inferSelect;
type FraudSignalRow = typeof fraudSignals.$inferSelect;
type ReviewDecisionRow = typeof reviewDecisions.$inferSelect;

function toFaceMatch(row: FaceMatchRow) {
  const { modelName, modelVersion, similarityScore, threshold, isMatch, inferenceLatencyMs } = row;
  return { modelName, modelVersion, similarityScore, threshold, isMatch, inferenceTimestamp: row.inferenceTimestamp.toISOString(), inferenceLatencyMs };
}

function toLiveness(row: LivenessRow) {
  const { modelName, modelVersion, livenessScore, threshold, isLive, presentationAttackDetected, attackType, inferenceLatencyMs } = row;
  return { modelName, modelVersion, livenessScore, threshold, isLive, presentationAttackDetected, attackType, inferenceTimestamp: row.inferenceTimestamp.toISOString(), inferenceLatencyMs };
}

const toFraudSignal = (row: FraudSignalRow) => ({ type: row.type, severity: row.severity as 'low' | 'medium' | 'high', detail: row.detail, detectedAt: row.detectedAt.toISOString() });

const toReviewDecision = (row: ReviewDecisionRow) => ({
  id: row.id,
  reviewerId: row.reviewerId,
  decision: row.decision as 'Approved' | 'Rejected',
  reason: row.reason,
  decidedAt: row.decidedAt.toISOString(),
});

type JsonRow = Record<string, unknown>;
const TIMESTAMP_KEY = /(_at|_timestamp)$/;

/**
 * A row that PostgreSQL sent as `row_to_json` in the table's own shape: snake_case keys become
 * the schema's camelCase, and timestamps (PostgreSQL text such as `…+00:00`) become Dates, so the
 * same mappers serve Drizzle rows and the detail statement's json.
 */
function fromJsonRow<Row>(json: JsonRow): Row {
  return Object.fromEntries(
    Object.entries(json).map(([key, value]) => [
      key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase()),
      TIMESTAMP_KEY.test(key) && typeof value === 'string' ? new Date(value) : value,
    ]),
  ) as Row;
}

/** Rows of one section of the detail: `json_agg` of the table's rows for the case, in order. */
const sectionJson = (table: PgTable, order: string, where = '') =>
  sql<JsonRow[]>`(select coalesce(json_agg(row_to_json(item) order by ${sql.raw(order)}), '[]'::json)
    from ${table} item where item.case_id = ${verificationCases.id}${sql.raw(where)})`;

/** A check result of the detail: `row_to_json` of its one row for the case, or null. */
const resultJson = (table: PgTable) => sql<JsonRow | null>`(select row_to_json(item) from ${table} item where item.case_id = ${verificationCases.id})`;

/**
 * The spec's detail view, every section present (empty arrays and nulls until something
 * exists), read in one statement: the case, its session, current evidence, the three check
 * results, fraud signals and review decisions come back as one row, so a read costs one round
 * trip whatever the case holds.
 */
/** Exported for the bench, whose reference runs this very statement (services/identity/bench). */
export const caseDetailQuery = preparedPerDatabase((db) =>
  db
    .select({
      case: verificationCases,
      session: { id: caseSessions.id, expiresAt: caseSessions.expiresAt, usedAt: caseSessions.usedAt },
      evidence: sectionJson(evidence, 'item.uploaded_at, item.id', ' and item.replaced_at is null'),
      ocr: resultJson(ocrResults),
      faceMatch: resultJson(faceMatchResults),
      liveness: resultJson(livenessResults),
      reviewDecisions: sectionJson(reviewDecisions, 'item.decided_at, item.id'),
      fraudSignals: sectionJson(fraudSignals, 'item.detected_at, item.id'),
    })
    .from(verificationCases)
    .innerJoin(caseSessions, eq(caseSessions.caseId, verificationCases.id))
    .where(and(eq(verificationCases.id, sql.placeholder('caseId')), eq(verificationCases.tenantId, sql.placeholder('tenantId'))))
    .prepare('identity_case_detail'),
);

export async function getCaseDetail(db: IdentityExecutor, tenantId: string, caseId: string) {
  const [row] = await caseDetailQuery(db).execute({ caseId, tenantId });
  if (!row) throw new NotFoundError(`No verification case with id ${caseId}.`);
  const sections = { documentEvidence: [], selfieEvidence: [], videoEvidence: [] } as Record<(typeof EVIDENCE_SECTION)[EvidenceType], ReturnType<typeof toEvidenceRecord>[]>;
  for (const item of row.evidence) {
    const record = toEvidenceRecord(fromJsonRow<EvidenceRow>(item));
    sections[EVIDENCE_SECTION[record.evidenceType]].push(record);
  }
  const { case: verification, session, ocr, faceMatch, liveness } = row;
  return {
    id: verification.id,
    externalReference: verification.externalReference,
    status: verification.status as CaseStatus,
    documentType: verification.documentType as DocumentType,
    sandbox: verification.sandbox,
    compositeRiskScore: verification.compositeRiskScore,
    decisionReason: verification.decisionReason,
    createdAt: verification.createdAt.toISOString(),
    updatedAt: verification.updatedAt.toISOString(),
    completedAt: iso(verification.completedAt),
    redactionRequestedAt: iso(verification.redactionRequestedAt),
    redactedAt: iso(verification.redactedAt),
    session: { id: session.id, expiresAt: session.expiresAt.toISOString(), isUsed: session.usedAt !== null, usedAt: iso(session.usedAt) },
    returnUrl: verification.returnUrl,
    consent: verification.consentGivenAt
      ? { givenAt: verification.consentGivenAt.toISOString(), language: verification.consentLanguage ?? '', userAgent: verification.consentUserAgent }
      : null,
    ...sections,
    ocrResult: ocr ? toOcrResult(fromJsonRow<OcrRow>(ocr)) : null,
    faceMatch: faceMatch ? toFaceMatch(fromJsonRow<FaceMatchRow>(faceMatch)) : null,
    liveness: liveness ? toLiveness(fromJsonRow<LivenessRow>(liveness)) : null,
    fraudSignals: row.fraudSignals.map((signal) => toFraudSignal(fromJsonRow<FraudSignalRow>(signal))),
    reviewDecisions: row.reviewDecisions.map((review) => toReviewDecision(fromJsonRow<ReviewDecisionRow>(review))),
  };
}
