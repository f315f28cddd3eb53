import { sql } from 'drizzle-orm';
import { index, integer, text, uuid, type PgSchema } from 'drizzle-orm/pg-core';
import { dueIndex, leasedQueueColumns, QUEUE_STATUSES, type QueueStatus } from './leased-queue-columns.js';

export const DELIVERY_STATUSES = QUEUE_STATUSES;
export type DeliveryStatus = QueueStatus;

/**
 * The delivery queue lives in each service's own schema (fx, identity): a service
 * declares it in its db/schema.ts with its pgSchema, and drizzle-kit generates the table
 * into that service's migrations. One row is one event for one subscription; it is the
 * outbox record (written in the transaction that caused the event) and the delivery
 * record (attempts, last status) at once.
 */
export function defineDeliveryTable(schema: PgSchema, name = 'webhook_deliveries') {
  return schema.table(
    name,
    {
      id: uuid('id').primaryKey().defaultRandom(),
      /** Event type, e.g. `rate_alert` or `verification.approved`. */
      topic: text('topic').notNull(),
      /** The webhook/subscription this delivery goes to; the service resolves URL and secret from it at send time. */
      subscriptionId: uuid('subscription_id').notNull(),
      /** What the event is about (identity: the case), null when about nothing in particular (a test ping, an fx alert). */
      subjectId: uuid('subject_id'),
      /** The exact body to POST; signatures are computed over it at each attempt with a fresh timestamp. */
      payload: text('payload').notNull(),
      ...leasedQueueColumns(),
      /** HTTP status of the last attempt, 0 when no response arrived. */
      lastStatusCode: integer('last_status_code'),
    },
    (table) => [
      dueIndex(name, table),
      // Delivery history per subscription (identity: GET /webhooks/{id}/deliveries).
      index(`${name}_subscription_idx`).on(table.subscriptionId, table.createdAt),
      // Retention: finished rows by age.
      index(`${name}_finished_idx`).on(table.completedAt).where(sql`${table.status} in ('succeeded', 'failed')`),
    ],
  );
}

export type DeliveryTable = ReturnType<typeof defineDeliveryTable>;
export type Delivery = DeliveryTable['$inferSelect'];
