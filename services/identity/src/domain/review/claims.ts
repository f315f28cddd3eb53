import { ForbiddenError, NotFoundError, ProblemError } from '@svc/problem-json';
import { eq } from 'drizzle-orm';
import { caseClaims, staffUsers, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import type { CaseStatus } from '../cases/case-states.js';
import { InvalidCaseStateError, lockCase } from '../cases/case-transitions.js';
import type { StaffPrincipal } from '../accounts/staff.js';

/** Long enough to read a case, short enough that an abandoned one is soon back in the queue. */
export const CLAIM_SECONDS = 15 * 60;

export interface ClaimHolder {
  staffId: string;
  email: string;
  expiresAt: string;
}

/** 409 naming who works on the case and until when, so the console can say so. */
export class CaseClaimedError extends ProblemError {
  constructor(caseId: string, holder: ClaimHolder) {
    super({
      status: 409,
      code: 'CASE_CLAIMED',
      title: 'Case Claimed',
      detail: `Case ${caseId} is being reviewed by ${holder.email} until ${holder.expiresAt}.`,
      extensions: { caseId, claimedBy: holder },
    });
  }
}

async function currentHolder(tx: IdentityExecutor, caseId: string, now: Date): Promise<ClaimHolder | null> {
  const [row] = await tx
    .select({ staffId: caseClaims.staffId, email: staffUsers.email, expiresAt: caseClaims.expiresAt })
    .from(caseClaims)
    .innerJoin(staffUsers, eq(staffUsers.id, caseClaims.staffId))
    .where(eq(caseClaims.caseId, caseId));
  if (!row || row.expiresAt.getTime() <= now.getTime()) return null;
  return { staffId: row.staffId, email: row.email, expiresAt: row.expiresAt.toISOString() };
}

/**
 * Takes (or renews) a reviewer's claim on a case waiting for review. The case row is locked
 * first, so two reviewers racing for one case run one after the other: the second finds the
 * first's live claim and gets 409 CASE_CLAIMED naming them.
 */
export async function claimCase(tx: IdentityExecutor, input: { caseId: string; staff: StaffPrincipal; correlationId: string }, now: Date): Promise<ClaimHolder> {
  const locked = await lockCase(tx, input.caseId, null);
  if (locked.status !== 'PendingManualReview') {
    throw new InvalidCaseStateError(locked.id, locked.status as CaseStatus, 'be claimed (only a case in PendingManualReview can)', { conflictEvenIfClosed: true });
  }
  const holder = await currentHolder(tx, locked.id, now);
  if (holder && holder.staffId !== input.staff.staffId) throw new CaseClaimedError(locked.id, holder);
  const expiresAt = new Date(now.getTime() + CLAIM_SECONDS * 1000);
  const claim = { staffId: input.staff.staffId, claimedAt: now, expiresAt };
  await tx
    .insert(caseClaims)
    .values({ caseId: locked.id, ...claim })
    .onConflictDoUpdate({ target: caseClaims.caseId, set: claim });
  if (!holder) {
    await writeAudit(tx, { tenantId: locked.tenantId, actor: `staff:${input.staff.staffId}`, action: 'review.claimed', target: `case:${locked.id}`, correlationId: input.correlationId, after: { expiresAt: expiresAt.toISOString() } }, now);
  }
  return { staffId: input.staff.staffId, email: input.staff.email, expiresAt: expiresAt.toISOString() };
}

/** Ends a claim: its holder may, and a ReviewLead may end anyone's (a reviewer who went home). */
export async function releaseClaim(tx: IdentityExecutor, input: { caseId: string; staff: StaffPrincipal; correlationId: string }, now: Date): Promise<void> {
  const locked = await lockCase(tx, input.caseId, null);
  const holder = await currentHolder(tx, locked.id, now);
  if (!holder) throw new NotFoundError(`Case ${locked.id} is not claimed.`);
  if (holder.staffId !== input.staff.staffId && input.staff.role !== 'ReviewLead') {
    throw new ForbiddenError(`Case ${locked.id} is claimed by ${holder.email}; only they or a ReviewLead can release it.`);
  }
  await tx.delete(caseClaims).where(eq(caseClaims.caseId, locked.id));
  await writeAudit(tx, { tenantId: locked.tenantId, actor: `staff:${input.staff.staffId}`, action: 'review.released', target: `case:${locked.id}`, correlationId: input.correlationId, before: { claimedBy: holder.staffId } }, now);
}

/**
 * Before a decision, under the case's lock: someone else's live claim refuses it; the decider's
 * own claim (or none: API clients decide without claiming) ends with it.
 */
export async function settleClaimForDecision(tx: IdentityExecutor, caseId: string, staffId: string, now: Date): Promise<void> {
  const holder = await currentHolder(tx, caseId, now);
  if (holder && holder.staffId !== staffId) throw new CaseClaimedError(caseId, holder);
  await tx.delete(caseClaims).where(eq(caseClaims.caseId, caseId));
}

export { currentHolder as claimHolderOf };
