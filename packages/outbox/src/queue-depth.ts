import { count, min, ne } from 'drizzle-orm';
import type { DeliveryTable } from './delivery-table.js';
import type { JobTable } from './job-table.js';
import type { AnyDatabase } from './leased-queue.js';

export interface QueueDepth {
  /** The job's kind, or the delivery's topic. */
  kind: string;
  status: 'pending' | 'in_flight' | 'failed';
  count: number;
  oldestCreatedAt: Date | null;
}

/**
 * What is waiting, running or given up in a queue, by kind (topic for deliveries), for
 * metrics and health pages. Succeeded rows are history, not depth, and are left out.
 */
export async function queueDepth(db: AnyDatabase, table: JobTable | DeliveryTable): Promise<QueueDepth[]> {
  const kind = 'kind' in table ? table.kind : table.topic;
  const rows = await db
    .select({ kind, status: table.status, count: count(), oldestCreatedAt: min(table.createdAt) })
    .from(table)
    .where(ne(table.status, 'succeeded'))
    .groupBy(kind, table.status)
    .orderBy(kind, table.status);
  return rows.map((row) => ({ ...row, status: row.status as QueueDepth['status'] }));
}
