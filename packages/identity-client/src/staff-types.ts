/**
 * The staff (internal) API's types and enumerations, generated from the staff OpenAPI document
 * the service serves to staff sessions (GET /api/internal/v1/openapi.json). Kept apart from
 * `./types`, which partners' code imports, so operator routes stay out of their view.
 * Browser-safe: the reviewers' console takes its response types and its lists from here.
 */
import { reviewHistoryScopeInputValues, reviewReasonCodeInputValues, reviewVerdictValues, staffRoleValues } from './generated/staff-openapi.js';

export type { components as StaffComponents, operations as StaffOperations, paths as StaffPaths } from './generated/staff-openapi.js';
export type {
  CaseClaim,
  MrzFieldComparison,
  ReviewHistoryItem,
  ReviewHistoryPage,
  ReviewOutcome,
  ReviewQueueItem,
  ReviewQueuePage,
  ReviewVerdict,
  StaffCaseView,
  StaffRole,
  StaffSession,
} from './generated/staff-openapi.js';

export const STAFF_ROLES = staffRoleValues;
/** The reasons a reviewer may pick from, in the order the console offers them. */
export const REVIEW_REASON_CODES = reviewReasonCodeInputValues;
export type ReviewReasonCode = (typeof REVIEW_REASON_CODES)[number];
export const REVIEW_VERDICTS = reviewVerdictValues;
/** `GET /review-history?scope=`: your own decisions, or everyone's (ReviewLead only). */
export const REVIEW_HISTORY_SCOPES = reviewHistoryScopeInputValues;
export type ReviewHistoryScope = (typeof REVIEW_HISTORY_SCOPES)[number];
