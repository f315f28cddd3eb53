/**
 * The case API's answers as the portal and the console read them: the generated client's
 * types (from the OpenAPI document the service serves), so the browser bundles neither
 * restate them nor pull the server's zod schemas in. The names are the screens' own.
 */
import type { VerificationCase, VerificationCaseListItem, VerificationCasePage } from '@svc/identity-client/types';

export { CASE_STATUSES } from '@svc/identity-client/types';
export type { CaseHistoryEntry, CaseStatus, DocumentType, EvidenceRecord, EvidenceType, FaceMatch, FraudSignal, Liveness, OcrResult, ReviewDecision } from '@svc/identity-client/types';
export type CaseDetail = VerificationCase;
export type CaseListItem = VerificationCaseListItem;
export type CasePage = VerificationCasePage;
