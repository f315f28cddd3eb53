import type { LeasedRow, QueueStatements } from './leased-queue-sql.js';

const DAY_MS = 86_400_000;

export interface RetentionPurger {
  /** Deletes finished rows past the retention period now; resolves with how many (0 without retention). */
  purgeNow(): Promise<number>;
  /** Purges at once, then every interval, until stop(). */
  start(): void;
  /** Stops the schedule and waits for a purge in progress. */
  stop(): Promise<void>;
}

/**
 * Deletes finished rows (succeeded, failed) completed more than `days` ago, in small batches:
 * each delete is a short transaction that never holds many row locks.
 */
export function createRetentionPurger<Row extends LeasedRow>(options: {
  statements: Pick<QueueStatements<Row>, 'purge'>;
  clock: () => Date;
  retention: { days: number; intervalMs?: number; batchSize?: number } | undefined;
  warn: (error: unknown) => void;
}): RetentionPurger {
  const { retention, statements, clock } = options;
  let timer: NodeJS.Timeout | undefined;
  let scheduled = false;
  let purging: Promise<unknown> = Promise.resolve();

  async function purgeNow(): Promise<number> {
    if (!retention) return 0;
    const batchSize = retention.batchSize ?? 1000;
    const before = new Date(clock().getTime() - retention.days * DAY_MS);
    let total = 0;
    for (;;) {
      const deleted = await statements.purge(before, batchSize);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }

  function schedule(delayMs: number): void {
    if (!retention || !scheduled) return;
    timer = setTimeout(() => {
      purging = purgeNow()
        .catch(options.warn)
        .finally(() => schedule(retention.intervalMs ?? 3_600_000));
    }, delayMs);
    timer.unref();
  }

  return {
    purgeNow,
    start() {
      scheduled = true;
      schedule(0);
    },
    async stop() {
      scheduled = false;
      clearTimeout(timer);
      await purging;
    },
  };
}
