import { count, inArray, min } from 'drizzle-orm';
import type { DeliveryTable } from './delivery-table.js';
import type { JobTable } from './job-table.js';
import { OPEN_QUEUE_STATUSES } from './leased-queue-columns.js';
import type { AnyDatabase } from './leased-queue.js';

export interface QueueDepth {
  /** The job's kind, or the delivery's topic. */
  kind: string;
  status: 'pending' | 'in_flight' | 'failed';
  count: number;
  oldestCreatedAt: Date | null;
}

const OPEN_STATUSES: QueueDepth['status'][] = [...OPEN_QUEUE_STATUSES];

/**
 * What is waiting, running or given up in a queue, by kind (topic for deliveries), for
 * metrics and health pages. Succeeded rows are history, not depth, and are left out.
 * `openOnly` counts only pending and in-flight rows, which the due index covers: what a
 * frequently polled health page should ask, since failed rows pile up unindexed.
 */
export async function queueDepth(db: AnyDatabase, table: JobTable | DeliveryTable, options: { openOnly?: boolean } = {}): Promise<QueueDepth[]> {
  const kind = 'kind' in table ? table.kind : table.topic;
  const statuses: QueueDepth['status'][] = options.openOnly ? OPEN_STATUSES : [...OPEN_STATUSES, 'failed'];
  const rows = await db
    .select({ kind, status: table.status, count: count(), oldestCreatedAt: min(table.createdAt) })
    .from(table)
    .where(inArray(table.status, statuses))
    .groupBy(kind, table.status)
    .orderBy(kind, table.status);
  return rows.map((row) => ({ ...row, status: row.status as QueueDepth['status'] }));
}
