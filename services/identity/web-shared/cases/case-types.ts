/**
 * The case API's answers as the portal reads them (services/identity/src/routes/case-schemas.ts
 * and the case history route). Declared here rather than imported, so the browser bundle never
 * pulls the server's zod schemas in.
 */
export const CASE_STATUSES = [
  'Requested',
  'SessionIssued',
  'CaptureStarted',
  'EvidenceUploaded',
  'AutomatedChecksRunning',
  'PendingManualReview',
  'Approved',
  'Rejected',
  'Expired',
  'Cancelled',
  'Failed',
] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

export type DocumentType = 'SyrianNationalId' | 'SyrianPassport';
export type EvidenceType = 'DocumentFront' | 'DocumentBack' | 'Selfie' | 'LivenessVideo';

export interface CaseListItem {
  id: string;
  externalReference: string | null;
  status: CaseStatus;
  documentType: DocumentType;
  compositeRiskScore: number | null;
  createdAt: string;
  completedAt: string | null;
}

export interface CasePage {
  items: CaseListItem[];
  page: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
}

export interface EvidenceRecord {
  id: string;
  evidenceType: EvidenceType;
  contentType: string;
  fileSizeBytes: number;
  originalFileName: string;
  sha256Hash: string;
  uploadedAt: string;
}

export interface OcrResult {
  modelName: string;
  modelVersion: string;
  confidenceScore: number;
  extractedFieldsJson: string;
  mrzIsValid: boolean | null;
  mrzRawText: string | null;
  hasManipulationIndicators: boolean;
  inferenceTimestamp: string;
  inferenceLatencyMs: number;
}

export interface FaceMatch {
  modelName: string;
  modelVersion: string;
  similarityScore: number;
  threshold: number;
  isMatch: boolean;
  inferenceTimestamp: string;
  inferenceLatencyMs: number;
}

export interface Liveness {
  modelName: string;
  modelVersion: string;
  livenessScore: number;
  threshold: number;
  isLive: boolean;
  presentationAttackDetected: boolean;
  attackType: string | null;
  inferenceTimestamp: string;
  inferenceLatencyMs: number;
}

export interface FraudSignal {
  type: string;
  severity: 'low' | 'medium' | 'high';
  detail: string;
  detectedAt: string;
}

export interface ReviewDecision {
  id: string;
  reviewerId: string;
  decision: 'Approved' | 'Rejected';
  reason: string;
  decidedAt: string;
}

export interface CaseDetail {
  id: string;
  externalReference: string | null;
  status: CaseStatus;
  documentType: DocumentType;
  sandbox: boolean;
  compositeRiskScore: number | null;
  decisionReason: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Set once the evidence and personal data were destroyed (on request or by the retention policy). */
  redactedAt: string | null;
  /** Set from the redaction request on: the files answer 410 from then. */
  redactionRequestedAt: string | null;
  session: { id: string; expiresAt: string; isUsed: boolean; usedAt: string | null } | null;
  /** The partner API's detail only (the review console's has neither). */
  returnUrl?: string | null;
  consent?: { givenAt: string; language: string; userAgent: string | null } | null;
  documentEvidence: EvidenceRecord[];
  selfieEvidence: EvidenceRecord[];
  videoEvidence: EvidenceRecord[];
  ocrResult: OcrResult | null;
  faceMatch: FaceMatch | null;
  liveness: Liveness | null;
  fraudSignals: FraudSignal[];
  reviewDecisions: ReviewDecision[];
}

export interface CaseHistoryEntry {
  at: string;
  action: string;
  actor: string;
  fromStatus: CaseStatus | null;
  toStatus: CaseStatus | null;
  detail: Record<string, unknown> | null;
}
