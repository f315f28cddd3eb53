import { CANCELLABLE_CASE_STATUSES, OPEN_CASE_STATUSES, TERMINAL_CASE_STATUSES } from '@svc/identity-client/types';

/** The eleven case states of the spec, in the order a case moves through them. */
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

// The subsets come from the client package so the screens and the server read the same lists.
export const TERMINAL_STATUSES: readonly CaseStatus[] = TERMINAL_CASE_STATUSES;
export const OPEN_STATUSES: readonly CaseStatus[] = OPEN_CASE_STATUSES;

export function isTerminal(status: CaseStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export const DOCUMENT_TYPES = ['SyrianNationalId', 'SyrianPassport'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** What moves a case. Creation is not a trigger: a case is born SessionIssued (see docs/decisions/0085-requested.md). */
export type CaseTrigger = 'start-capture' | 'submit-evidence' | 'start-checks' | 'flag-for-review' | 'approve' | 'reject' | 'fail' | 'expire' | 'cancel';

interface Transition {
  from: readonly CaseStatus[];
  to: CaseStatus;
}

/**
 * The only table of legal moves (state × trigger → next state); case-transitions.ts refuses
 * everything else. The spec fixes the targets and the sources of cancel; the other sources
 * are ours: each step follows the one before it, a decision comes from the checks or from a
 * manual review, and every open state can expire (session unused, or a case stuck past
 * CASE_TTL_SECONDS).
 */
export const TRANSITIONS: Readonly<Record<CaseTrigger, Transition>> = {
  'start-capture': { from: ['SessionIssued'], to: 'CaptureStarted' },
  'submit-evidence': { from: ['CaptureStarted'], to: 'EvidenceUploaded' },
  'start-checks': { from: ['EvidenceUploaded'], to: 'AutomatedChecksRunning' },
  'flag-for-review': { from: ['AutomatedChecksRunning'], to: 'PendingManualReview' },
  approve: { from: ['AutomatedChecksRunning', 'PendingManualReview'], to: 'Approved' },
  reject: { from: ['AutomatedChecksRunning', 'PendingManualReview'], to: 'Rejected' },
  fail: { from: ['EvidenceUploaded', 'AutomatedChecksRunning'], to: 'Failed' },
  expire: { from: OPEN_STATUSES, to: 'Expired' },
  cancel: { from: CANCELLABLE_CASE_STATUSES, to: 'Cancelled' },
};

/** The next state, or null when the trigger is not allowed from `status`. */
export function nextStatus(status: CaseStatus, trigger: CaseTrigger): CaseStatus | null {
  const transition = TRANSITIONS[trigger];
  return transition.from.includes(status) ? transition.to : null;
}

/** `verification.session_issued` for SessionIssued, and so on: the event a state's arrival fires. */
export function eventTypeFor(status: CaseStatus): string {
  return `verification.${status.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toLowerCase()}`;
}

export const EVIDENCE_TYPES = ['DocumentFront', 'DocumentBack', 'Selfie', 'LivenessVideo'] as const;
export type EvidenceType = (typeof EVIDENCE_TYPES)[number];

/** What the end user must upload before submitting, per document (a passport has no back side). */
export const REQUIRED_EVIDENCE: Readonly<Record<DocumentType, readonly EvidenceType[]>> = {
  SyrianNationalId: ['DocumentFront', 'DocumentBack', 'Selfie', 'LivenessVideo'],
  SyrianPassport: ['DocumentFront', 'Selfie', 'LivenessVideo'],
};
