import { and, eq, inArray, lte, or } from 'drizzle-orm';
import { caseSessions, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { OPEN_STATUSES, type CaseStatus } from './case-states.js';
import { transitionCase } from './case-transitions.js';

/** States in which the end user still has to act: their session's expiry ends the case. */
const AWAITING_END_USER: CaseStatus[] = ['Requested', 'SessionIssued', 'CaptureStarted'];

export interface ExpiryOptions {
  now: Date;
  caseTtlSeconds: number;
  batchSize?: number;
}

/**
 * Moves to Expired, with the event, every open case whose session expired before the end user
 * submitted, and every open case older than CASE_TTL_SECONDS. Batches of rows locked with
 * SKIP LOCKED: several workers sweeping at once take disjoint cases, and a case that a request
 * holds right now is left for the next sweep (which re-checks the condition then).
 */
export async function expireDueCases(db: IdentityExecutor, options: ExpiryOptions): Promise<number> {
  const batchSize = options.batchSize ?? 100;
  const caseDeadline = new Date(options.now.getTime() - options.caseTtlSeconds * 1000);
  let expired = 0;
  for (;;) {
    const count = await db.transaction(async (tx) => {
      const due = await tx
        .select({ case: verificationCases, sessionExpiresAt: caseSessions.expiresAt })
        .from(verificationCases)
        .innerJoin(caseSessions, eq(caseSessions.caseId, verificationCases.id))
        .where(
          and(
            inArray(verificationCases.status, [...OPEN_STATUSES]),
            or(lte(verificationCases.createdAt, caseDeadline), and(inArray(verificationCases.status, AWAITING_END_USER), lte(caseSessions.expiresAt, options.now))),
          ),
        )
        .orderBy(verificationCases.createdAt)
        .limit(batchSize)
                // Locks the case and its session row; SKIP LOCKED never waits, so lock order cannot deadlock.
        .for('update', { skipLocked: true });
      for (const row of due) {
        const sessionExpired = row.sessionExpiresAt.getTime() <= options.now.getTime() && AWAITING_END_USER.includes(row.case.status as CaseStatus);
        const decisionReason = sessionExpired
          ? `The verification session expired at ${row.sessionExpiresAt.toISOString()} before the end user submitted evidence.`
          : `The case was not decided within ${options.caseTtlSeconds} seconds of its creation.`;
        await transitionCase(tx, row.case, { trigger: 'expire', action: 'expire', actor: { actor: 'system:expiry' }, now: options.now, decision: { decisionReason } });
      }
      return due.length;
    });
    expired += count;
    if (count < batchSize) return expired;
  }
}
