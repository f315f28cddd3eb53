import { sql } from 'drizzle-orm';
import { index, integer, text, timestamp, uuid, type PgSchema } from 'drizzle-orm/pg-core';

export const DELIVERY_STATUSES = ['pending', 'in_flight', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

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
      /** The exact body to POST; signatures are computed over it at each attempt with a fresh timestamp. */
      payload: text('payload').notNull(),
      status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
      attemptCount: integer('attempt_count').notNull().default(0),
      maxAttempts: integer('max_attempts').notNull(),
      nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull(),
      leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true, mode: 'date' }),
      lastStatusCode: integer('last_status_code'),
      lastError: text('last_error'),
      lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
      createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
      completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    },
    (table) => [
      // The claim query: due pending rows and expired leases, oldest first.
      index(`${name}_due_idx`).on(table.status, table.nextAttemptAt).where(sql`${table.status} in ('pending', 'in_flight')`),
      // Delivery history per subscription (identity: GET /webhooks/{id}/deliveries).
      index(`${name}_subscription_idx`).on(table.subscriptionId, table.createdAt),
    ],
  );
}

export type DeliveryTable = ReturnType<typeof defineDeliveryTable>;
export type Delivery = DeliveryTable['$inferSelect'];
