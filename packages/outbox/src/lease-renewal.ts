import type { LeasedRow, QueueStatements } from './leased-queue-sql.js';

/**
 * Extends the leases of `rowsHeld()` every third of the lease until the returned function is
 * called: one statement for all of them, the next only after it answered. A lease is thus lost
 * only when two renewals in a row fail or are late, and a short lease still frees a dead
 * worker's rows quickly however long an attempt runs.
 */
export function renewLeasesEvery<Row extends LeasedRow>(
  dependencies: { statements: Pick<QueueStatements<Row>, 'renew'>; clock: () => Date; leaseMs: number; warn: (error: unknown) => void },
  rowsHeld: () => Row[],
): () => void {
  const { statements, clock, leaseMs, warn } = dependencies;
  let renewing = true;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(
      () => {
        statements
          .renew(rowsHeld(), new Date(clock().getTime() + leaseMs))
          .catch(warn)
          .finally(() => {
            if (renewing) schedule();
          });
      },
      Math.max(Math.floor(leaseMs / 3), 10),
    );
    timer.unref();
  };
  schedule();
  return () => {
    renewing = false;
    clearTimeout(timer);
  };
}
