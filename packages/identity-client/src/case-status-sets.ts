/**
 * The subsets of the case lifecycle that screens and the server both act on. Written once here,
 * beside the generated status list, because the server's transition table, retention sweep and
 * partial index and the portal's and console's case screens must agree on them; the server
 * imports them from this module rather than restating them (docs/decisions/0341-case-status-subsets.md).
 */
import { caseStatusValues, type CaseStatus } from './generated/openapi.js';

/** A case in one of these states will not move again. */
export const TERMINAL_CASE_STATUSES = ['Approved', 'Rejected', 'Expired', 'Cancelled', 'Failed'] as const satisfies readonly CaseStatus[];
/** Terminal by a decision on the evidence (kept for the tenant's evidence retention). */
export const DECIDED_CASE_STATUSES = ['Approved', 'Rejected'] as const satisfies readonly CaseStatus[];
/** The partner (or staff) may still cancel a case in these states. */
export const CANCELLABLE_CASE_STATUSES = ['Requested', 'SessionIssued', 'CaptureStarted', 'PendingManualReview'] as const satisfies readonly CaseStatus[];

const isIn = (set: readonly CaseStatus[]) => (status: CaseStatus) => set.includes(status);
/** Terminal without a decision: expired, cancelled or failed. */
export const UNDECIDED_CASE_STATUSES: readonly CaseStatus[] = TERMINAL_CASE_STATUSES.filter((status) => !isIn(DECIDED_CASE_STATUSES)(status));
/** Every state a case can still leave, in lifecycle order. */
export const OPEN_CASE_STATUSES: readonly CaseStatus[] = caseStatusValues.filter((status) => !isIn(TERMINAL_CASE_STATUSES)(status));
