import { NotFoundError } from '@svc/problem-json';
import { and, count, desc, eq, isNull, type SQL } from 'drizzle-orm';
import { caseSessions, evidence, faceMatchResults, livenessResults, ocrResults, verificationCases, type IdentityExecutor } from '../../db/schema.js';
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

/** The spec's detail view, every section present (empty arrays and nulls until something exists). */
export async function getCaseDetail(db: IdentityExecutor, tenantId: string, caseId: string) {
  const [row] = await db
    .select({ case: verificationCases, session: caseSessions })
    .from(verificationCases)
    .leftJoin(caseSessions, eq(caseSessions.caseId, verificationCases.id))
    .where(and(eq(verificationCases.id, caseId), eq(verificationCases.tenantId, tenantId)));
  if (!row) throw new NotFoundError(`No verification case with id ${caseId}.`);
  const [evidenceRows, [ocr], [faceMatch], [liveness]] = await Promise.all([
    currentEvidence(db, caseId),
    db.select().from(ocrResults).where(eq(ocrResults.caseId, caseId)),
    db.select().from(faceMatchResults).where(eq(faceMatchResults.caseId, caseId)),
    db.select().from(livenessResults).where(eq(livenessResults.caseId, caseId)),
  ]);
  const sections = { documentEvidence: [], selfieEvidence: [], videoEvidence: [] } as Record<(typeof EVIDENCE_SECTION)[EvidenceType], ReturnType<typeof toEvidenceRecord>[]>;
  for (const item of evidenceRows) sections[EVIDENCE_SECTION[item.evidenceType as EvidenceType]].push(toEvidenceRecord(item));
  const { case: verification, session } = row;
  return {
    id: verification.id,
    externalReference: verification.externalReference,
    status: verification.status as CaseStatus,
    documentType: verification.documentType as DocumentType,
    compositeRiskScore: verification.compositeRiskScore,
    decisionReason: verification.decisionReason,
    createdAt: verification.createdAt.toISOString(),
    updatedAt: verification.updatedAt.toISOString(),
    completedAt: iso(verification.completedAt),
    session: session ? { id: session.id, expiresAt: session.expiresAt.toISOString(), isUsed: session.usedAt !== null, usedAt: iso(session.usedAt) } : null,
    ...sections,
    ocrResult: ocr ? toOcrResult(ocr) : null,
    faceMatch: faceMatch
      ? {
          modelName: faceMatch.modelName,
          modelVersion: faceMatch.modelVersion,
          similarityScore: faceMatch.similarityScore,
          threshold: faceMatch.threshold,
          isMatch: faceMatch.isMatch,
          inferenceTimestamp: faceMatch.inferenceTimestamp.toISOString(),
          inferenceLatencyMs: faceMatch.inferenceLatencyMs,
        }
      : null,
    liveness: liveness
      ? {
          modelName: liveness.modelName,
          modelVersion: liveness.modelVersion,
          livenessScore: liveness.livenessScore,
          threshold: liveness.threshold,
          isLive: liveness.isLive,
          presentationAttackDetected: liveness.presentationAttackDetected,
          attackType: liveness.attackType,
          inferenceTimestamp: liveness.inferenceTimestamp.toISOString(),
          inferenceLatencyMs: liveness.inferenceLatencyMs,
        }
      : null,
    // Filled by the automated-checks issue (fraud signals, manual review).
    fraudSignals: [] as unknown[],
    reviewDecisions: [] as unknown[],
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
