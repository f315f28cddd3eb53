import { reviewDecisions, type IdentityExecutor } from '../../db/schema.js';
import { correctOcrFields } from '../cases/case-commands.js';
import type { CaseStatus } from '../cases/case-states.js';
import { InvalidCaseStateError, lockCase, transitionCase } from '../cases/case-transitions.js';
import { settleClaimForDecision } from './claims.js';

export type ReviewDecision = 'Approved' | 'Rejected';

/** The reasons a reviewer picks from; `other` needs words of its own. */
export const REVIEW_REASON_CODES = ['document_unreadable', 'face_mismatch', 'suspected_fraud', 'expired_document', 'other'] as const;
export type ReviewReasonCode = (typeof REVIEW_REASON_CODES)[number];

export interface ReviewInput {
  caseId: string;
  reviewerId: string;
  decision: ReviewDecision;
  reasonCode?: ReviewReasonCode | undefined;
  /** Free text; with a reason code it may be empty. */
  reason: string;
  corrections?: { fields: Record<string, string>; notes?: string | undefined } | undefined;
  correlationId: string;
}

function decisionReasonOf(input: ReviewInput): string {
  if (!input.reasonCode) return `Manual review: ${input.reason}`;
  return `Manual review (${input.reasonCode})${input.reason ? `: ${input.reason}` : ''}`;
}

/**
 * A reviewer decides a case waiting for review: OCR corrections, the decision item, the move,
 * their audit rows and the event commit together. Any other state is a 409 naming it (the case
 * moved on, or never needed a person), so two reviewers racing on one case produce one
 * decision; another reviewer's live claim is a 409 naming them.
 */
export async function reviewCase(
  tx: IdentityExecutor,
  input: ReviewInput,
  now: Date,
  /** A corrected document number is kept only as its digest (see correctOcrFields). */
  documentNumberDigest: (documentNumber: string) => string,
): Promise<{ caseId: string; status: CaseStatus }> {
  const locked = await lockCase(tx, input.caseId, null);
  if (locked.status !== 'PendingManualReview') {
    throw new InvalidCaseStateError(locked.id, locked.status as CaseStatus, 'be reviewed (only a case in PendingManualReview can)', { conflictEvenIfClosed: true });
  }
  await settleClaimForDecision(tx, locked.id, input.reviewerId, now);
  const actor = { actor: `staff:${input.reviewerId}`, correlationId: input.correlationId };
  if (input.corrections) await correctOcrFields(tx, locked.tenantId, locked.id, input.corrections, actor, now, documentNumberDigest);
  await tx.insert(reviewDecisions).values({ caseId: locked.id, reviewerId: input.reviewerId, decision: input.decision, reasonCode: input.reasonCode ?? null, reason: input.reason, decidedAt: now });
  const updated = await transitionCase(tx, locked, {
    trigger: input.decision === 'Approved' ? 'approve' : 'reject',
    action: 'be reviewed',
    actor,
    now,
    decision: { decisionReason: decisionReasonOf(input) },
  });
  return { caseId: updated.id, status: updated.status as CaseStatus };
}
