import { selectRows } from '@svc/db';
import { currentTraceparent, notifyWorkers } from '@svc/outbox';
import { sql, type SQL } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints, type IdentityExecutor } from '../../db/schema.js';
import { WEBHOOK_ATTEMPTS, WEBHOOK_DELIVERY_CHANNEL } from './webhook-events.js';

export interface FannedOutEvent {
  tenantId: string;
  eventType: string;
  /** The case, or null for a test ping. */
  caseId: string | null;
  /** The exact body every endpoint receives. */
  payload: string;
}

/**
 * One delivery per active endpoint of the event's tenant subscribed to its type, written in
 * the caller's transaction (the state change's): the change and its deliveries commit
 * together or not at all. One statement; the NOTIFY wakes the workers when it commits.
 */
export async function fanOutEvent(tx: IdentityExecutor, event: FannedOutEvent, now: Date): Promise<number> {
  const inserted = await selectRows<{ id: string }>(tx, sql`${deliveriesInsert({ ...event, payload: sql`${event.payload}` }, now)} returning id`);
  if (inserted.length > 0) await notifyWorkers(tx, WEBHOOK_DELIVERY_CHANNEL);
  return inserted.length;
}

/**
 * The fan-out's INSERT … SELECT, for a statement that writes the event itself (a case's
 * creation, in one round trip): `payload` is SQL, a parameter or a column of an earlier CTE.
 */
export function deliveriesInsert(event: Omit<FannedOutEvent, 'payload'> & { payload: SQL }, now: Date): SQL {
  return sql`insert into ${webhookDeliveries} (topic, subscription_id, subject_id, payload, status, attempt_count, max_attempts, next_attempt_at, created_at, traceparent)
        select ${event.eventType}, e.id, ${event.caseId}::uuid, ${event.payload}, 'pending', 0, ${WEBHOOK_ATTEMPTS}, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz, ${currentTraceparent()}::text
        from ${webhookEndpoints} e
        where e.tenant_id = ${event.tenantId} and e.is_active and ${event.eventType} = any(e.event_types)`;
}
