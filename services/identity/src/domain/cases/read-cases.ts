import { NotFoundError } from '@svc/problem-json';
import { and, count, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { preparedPerDatabase } from '../../db/prepared.js';
import { caseSessions, evidence, fraudSignals, reviewDecisions, verificationCases, type IdentityExecutor, type ocrResults } from '../../db/schema.js';
import type { CaseStatus, DocumentType, EvidenceType } from './case-states.js';

const iso = (value: Date | null) => (value ? value.toISOString() : null);

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

type Row = Record<string, unknown>;
/** Timestamps inside json come as PostgreSQL text (`…+00:00`); the API speaks ISO 8601 in UTC. */
const isoText = (value: unknown) => (typeof value === 'string' ? new Date(value).toISOString() : null);

/** A section row of the detail, built by PostgreSQL: `row_to_json` of the result table, or null. */
const resultJson = (table: string) =>
  sql.raw(`(select row_to_json(result) from "identity"."${table}" result where result.case_id = "identity"."verification_cases"."id")`);

/**
 * The spec's detail view, every section present (empty arrays and nulls until something
 * exists), read in one statement: the case, its session, current evidence and the three check
 * results come back as one row, so a read costs one round trip whatever the case holds.
 */
const caseDetailQuery = preparedPerDatabase((db) =>
  db
    .select({
      case: verificationCases,
      session: { id: caseSessions.id, expiresAt: caseSessions.expiresAt, usedAt: caseSessions.usedAt },
      evidence: sql<Row[]>`(select coalesce(json_agg(row_to_json(item) order by item.uploaded_at, item.id), '[]'::json)
        from ${evidence} item where item.case_id = ${verificationCases.id} and item.replaced_at is null)`,
      ocr: sql<Row | null>`${resultJson('ocr_results')}`,
      faceMatch: sql<Row | null>`${resultJson('face_match_results')}`,
      liveness: sql<Row | null>`${resultJson('liveness_results')}`,
      reviewDecisions: sql<Row[]>`(select coalesce(json_agg(row_to_json(review) order by review.decided_at, review.id), '[]'::json)
        from ${reviewDecisions} review where review.case_id = ${verificationCases.id})`,
      fraudSignals: sql<Row[]>`(select coalesce(json_agg(row_to_json(signal) order by signal.detected_at, signal.id), '[]'::json)
        from ${fraudSignals} signal where signal.case_id = ${verificationCases.id})`,
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
    const record = {
      id: item.id as string,
      evidenceType: item.evidence_type as EvidenceType,
      contentType: item.content_type as string,
      fileSizeBytes: Number(item.file_size_bytes),
      originalFileName: item.original_file_name as string,
      sha256Hash: item.sha256_hash as string,
      uploadedAt: isoText(item.uploaded_at) ?? '',
    };
    sections[EVIDENCE_SECTION[record.evidenceType]].push(record);
  }
  const { case: verification, session, ocr, faceMatch, liveness } = row;
  const signals = row.fraudSignals.map((signal) => ({
    type: signal.type as string,
    severity: signal.severity as 'low' | 'medium' | 'high',
    detail: signal.detail as string,
    detectedAt: isoText(signal.detected_at) ?? '',
  }));
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
    session: { id: session.id, expiresAt: session.expiresAt.toISOString(), isUsed: session.usedAt !== null, usedAt: iso(session.usedAt) },
    ...sections,
    ocrResult: ocr
      ? {
          modelName: ocr.model_name as string,
          modelVersion: ocr.model_version as string,
          confidenceScore: ocr.confidence_score as number,
          extractedFieldsJson: ocr.extracted_fields_json as string,
          mrzIsValid: ocr.mrz_is_valid as boolean | null,
          mrzRawText: ocr.mrz_raw_text as string | null,
          hasManipulationIndicators: ocr.has_manipulation_indicators as boolean,
          inferenceTimestamp: isoText(ocr.inference_timestamp) ?? '',
          inferenceLatencyMs: ocr.inference_latency_ms as number,
        }
      : null,
    faceMatch: faceMatch
      ? {
          modelName: faceMatch.model_name as string,
          modelVersion: faceMatch.model_version as string,
          similarityScore: faceMatch.similarity_score as number,
          threshold: faceMatch.threshold as number,
          isMatch: faceMatch.is_match as boolean,
          inferenceTimestamp: isoText(faceMatch.inference_timestamp) ?? '',
          inferenceLatencyMs: faceMatch.inference_latency_ms as number,
        }
      : null,
    liveness: liveness
      ? {
          modelName: liveness.model_name as string,
          modelVersion: liveness.model_version as string,
          livenessScore: liveness.liveness_score as number,
          threshold: liveness.threshold as number,
          isLive: liveness.is_live as boolean,
          presentationAttackDetected: liveness.presentation_attack_detected as boolean,
          attackType: liveness.attack_type as string | null,
          inferenceTimestamp: isoText(liveness.inference_timestamp) ?? '',
          inferenceLatencyMs: liveness.inference_latency_ms as number,
        }
      : null,
    fraudSignals: signals,
    reviewDecisions: row.reviewDecisions.map((review) => ({
      id: review.id as string,
      reviewerId: review.reviewer_id as string,
      decision: review.decision as 'Approved' | 'Rejected',
      reason: review.reason as string,
      decidedAt: isoText(review.decided_at) ?? '',
    })),
  };
}

export interface ListCasesQuery {
  status?: CaseStatus | undefined;
  page: number;
  pageSize: number;
}

/** Newest first, ties broken by id so pages never overlap or skip. */
export async function listCases(db: IdentityExecutor, tenantId: string, query: ListCasesQuery) {
  const conditions: SQL[] = [eq(verificationCases.tenantId, tenantId)];
  if (query.status) conditions.push(eq(verificationCases.status, query.status));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: verificationCases.id,
        externalReference: verificationCases.externalReference,
        status: verificationCases.status,
        documentType: verificationCases.documentType,
        compositeRiskScore: verificationCases.compositeRiskScore,
        createdAt: verificationCases.createdAt,
        completedAt: verificationCases.completedAt,
      })
      .from(verificationCases)
      .where(where)
      .orderBy(desc(verificationCases.createdAt), desc(verificationCases.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ value: count() }).from(verificationCases).where(where),
  ]);
  const totalCount = total?.value ?? 0;
  return {
    items: rows.map((item) => ({ ...item, status: item.status as CaseStatus, documentType: item.documentType as DocumentType, createdAt: item.createdAt.toISOString(), completedAt: iso(item.completedAt) })),
    page: query.page,
    pageSize: query.pageSize,
    totalCount,
    totalPages: Math.ceil(totalCount / query.pageSize),
  };
}
