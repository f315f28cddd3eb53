import { enqueueJobs, notifyWorkers } from '@svc/outbox';
import { jobs, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { eq } from 'drizzle-orm';
import { writeAudit } from '../common/audit.js';
import { isTerminal, type CaseStatus } from '../cases/case-states.js';
import { InvalidCaseStateError, lockCase, type CaseRow } from '../cases/case-transitions.js';
import { type CaseActor } from '../common/actor.js';
import { JOBS_CHANNEL, REDACT_CASE_JOB } from '../jobs/job-kinds.js';

/**
 * Attempts of one redaction job. Each attempt only repeats what is left (every step is
 * idempotent), so a store outage costs a retry, never a half-redacted case for good.
 */
export const REDACTION_ATTEMPTS = 10;

export interface RedactionRequest {
  caseId: string;
  redactionRequestedAt: string;
}

/**
 * Asks for a closed case to be redacted: marks it and queues the redact-case job in one
 * transaction. Open cases are refused (cancel first), as Stripe refuses to redact a session
 * still processing. A second request answers the first one's time and changes nothing.
 * `tenantId` null: the retention sweep, which found the case itself.
 */
export async function requestRedaction(tx: IdentityExecutor, tenantId: string | null, caseId: string, actor: CaseActor & { reason: 'request' | 'retention' }, now: Date): Promise<RedactionRequest> {
  const locked = await lockCase(tx, caseId, tenantId);
  if (locked.redactionRequestedAt) return { caseId, redactionRequestedAt: locked.redactionRequestedAt.toISOString() };
  const status = locked.status as CaseStatus;
  if (!isTerminal(status)) throw new InvalidCaseStateError(caseId, status, 'be redacted (cancel it first)', { conflictEvenIfClosed: true });
  await markRequested(tx, locked, actor, now);
  await notifyWorkers(tx, JOBS_CHANNEL);
  return { caseId, redactionRequestedAt: now.toISOString() };
}

/** The mark, its audit row and its job: the parts shared with the retention sweep's batches. */
export async function markRequested(tx: IdentityExecutor, locked: CaseRow, actor: CaseActor & { reason: 'request' | 'retention' }, now: Date): Promise<void> {
  await tx.update(verificationCases).set({ redactionRequestedAt: now }).where(eq(verificationCases.id, locked.id));
  await writeAudit(
    tx,
    { tenantId: locked.tenantId, actor: actor.actor, action: 'verification.redaction_requested', target: `case:${locked.id}`, correlationId: actor.correlationId ?? null, after: { reason: actor.reason, status: locked.status } },
    now,
  );
  await enqueueRedaction(tx, locked, now);
}

export async function enqueueRedaction(tx: IdentityExecutor, row: Pick<CaseRow, 'id' | 'tenantId'>, now: Date): Promise<void> {
  await enqueueJobs(tx, jobs, [{ kind: REDACT_CASE_JOB, subjectId: row.id, payload: JSON.stringify({ caseId: row.id, tenantId: row.tenantId }), maxAttempts: REDACTION_ATTEMPTS }], now);
}
