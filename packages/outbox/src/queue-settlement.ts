import type { AnyDatabase, LeasedRow, QueueStatements, RowSettlement, Transaction } from './leased-queue-sql.js';
import type { AttemptResult, RecordedOutcome } from './leased-queue.js';

/** Outcomes written per settle statement. */
const SETTLE_CHUNK = 500;

export interface Finished<Row, Result> {
  row: Row;
  result: Result;
}

export interface SettlementOptions<Row extends LeasedRow, Result extends AttemptResult> {
  db: AnyDatabase;
  statements: Pick<QueueStatements<Row>, 'settle'>;
  clock: () => Date;
  retryScheduleMs: readonly number[];
  jitter: number;
  maxRetryAfterMs: number;
  onSettled?: (tx: Transaction, row: Row, result: Result, final: boolean) => Promise<void>;
  onSettledFor?: (row: Row, result: Result) => boolean;
  onAttemptRecorded?: (outcome: RecordedOutcome) => void;
}

function recordedOutcome(settlement: RowSettlement): RecordedOutcome {
  return settlement.status === 'succeeded' ? 'succeeded' : settlement.status === 'failed' ? 'gave_up' : 'retrying';
}

/**
 * Records what attempts came to: succeeded, failed for good (success, a permanent error or
 * the last allowed attempt) or pending again after the schedule's delay (with jitter, or a
 * longer Retry-After). Each row is written only if it is still ours (same attempt, still in
 * flight); the queue's onSettled bookkeeping commits in the same transaction.
 */
export function createSettler<Row extends LeasedRow, Result extends AttemptResult>(options: SettlementOptions<Row, Result>): (finished: Finished<Row, Result>[]) => Promise<void> {
  const { retryScheduleMs, jitter, maxRetryAfterMs, statements, clock } = options;

  function retryDelayMs(row: Row, result: Result): number {
    const scheduled = retryScheduleMs[Math.min(row.attemptCount, retryScheduleMs.length - 1)] ?? 0;
    const spread = scheduled * jitter * (2 * Math.random() - 1);
    const delay = Math.max(0, Math.round(scheduled + spread));
    const retryAfter = result.retryAfterMs === undefined ? 0 : Math.min(result.retryAfterMs, maxRetryAfterMs);
    return Math.max(delay, retryAfter);
  }

  function settlementOf({ row, result }: Finished<Row, Result>, now: Date): RowSettlement & { final: boolean } {
    const final = result.succeeded || result.permanent === true || row.attemptCount >= row.maxAttempts;
    return {
      id: row.id,
      attemptCount: row.attemptCount,
      status: result.succeeded ? 'succeeded' : final ? 'failed' : 'pending',
      error: result.error,
      attemptedAt: now,
      completedAt: final ? now : null,
      nextAttemptAt: final ? null : new Date(now.getTime() + retryDelayMs(row, result)),
      recorded: result.recorded ?? {},
      final,
    };
  }

  return async function settle(finished) {
    for (let start = 0; start < finished.length; start += SETTLE_CHUNK) {
      const chunk = finished.slice(start, start + SETTLE_CHUNK);
      const now = clock();
      const settlements = chunk.map((item) => settlementOf(item, now));
      const { onSettled, onSettledFor } = options;
      const hooked = onSettled ? chunk.map((item) => !onSettledFor || onSettledFor(item.row, item.result)) : [];
      let ours: Set<string>;
      if (!onSettled || !hooked.includes(true)) {
        // One statement is atomic on its own: no transaction round trips for a batch with no bookkeeping.
        ours = await statements.settle(options.db, settlements);
      } else {
        ours = await options.db.transaction(async (tx) => {
          const settled = await statements.settle(tx, settlements);
          // A row missing from `settled` was taken over after our lease expired: its new attempt records the outcome.
          for (const [index, item] of chunk.entries()) {
            if (hooked[index] && settled.has(item.row.id)) await onSettled(tx, item.row, item.result, settlements[index]!.final);
          }
          return settled;
        });
      }
      if (options.onAttemptRecorded) {
        for (const settlement of settlements) if (ours.has(settlement.id)) options.onAttemptRecorded(recordedOutcome(settlement));
      }
    }
  };
}
