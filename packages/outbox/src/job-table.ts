import { index, text, uuid, type PgSchema } from 'drizzle-orm/pg-core';
import { dueIndex, leasedQueueColumns, QUEUE_STATUSES, type QueueStatus } from './leased-queue-columns.js';

export const JOB_STATUSES = QUEUE_STATUSES;
export type JobStatus = QueueStatus;

/**
 * Background work on the same leased queue as deliveries, in the service's own schema
 * (declared in its db/schema.ts, generated into its migrations). One row is one run of one
 * kind of job, e.g. `run-checks` for one verification case.
 */
export function defineJobTable(schema: PgSchema, name = 'jobs') {
  return schema.table(
    name,
    {
      id: uuid('id').primaryKey().defaultRandom(),
      /** Which handler runs it; a worker claims only the kinds it has handlers for. */
      kind: text('kind').notNull(),
      /** What the job is about (e.g. a case id), to find a subject's jobs; null when about nothing in particular. */
      subjectId: uuid('subject_id'),
      /** JSON text, handed to the handler as stored. */
      payload: text('payload').notNull(),
      ...leasedQueueColumns(),
    },
    (table) => [dueIndex(name, table), index(`${name}_subject_idx`).on(table.subjectId)],
  );
}

export type JobTable = ReturnType<typeof defineJobTable>;
export type Job = JobTable['$inferSelect'];
