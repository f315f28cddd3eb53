import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '@svc/problem-json';
import { currentTraceparent, notifyWorkers } from '@svc/outbox';
import { and, count, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import { webhookDeliveries, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { pageOf } from '../common/paging.js';
import type { CaseActor } from '../common/actor.js';
import { ownEndpoint, type EndpointRow } from './webhook-endpoints.js';
import { TEST_EVENT_TYPE, WEBHOOK_DELIVERY_CHANNEL } from './webhook-events.js';

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The spec's delivery record, plus what a partner needs to act on it (state, next attempt, last error). */
export function toDeliveryRecord(row: DeliveryRow) {
  return {
    id: row.id,
    eventType: row.topic,
    caseId: row.subjectId,
    httpStatus: row.lastStatusCode,
    attemptCount: row.attemptCount,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    succeeded: row.status === 'succeeded',
    status: row.status,
    nextAttemptAt: row.status === 'pending' || row.status === 'in_flight' ? row.nextAttemptAt.toISOString() : null,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
  };
}

export interface DeliveryListQuery {
  page: number;
  pageSize: number;
  succeeded?: boolean | undefined;
  eventType?: string | undefined;
}

/** An endpoint's deliveries, newest first, in the spec's envelope. */
export async function listDeliveries(db: IdentityExecutor, tenantId: string, endpointId: string, query: DeliveryListQuery) {
  await ownEndpoint(db, tenantId, endpointId);
  const conditions: SQL[] = [eq(webhookDeliveries.subscriptionId, endpointId)];
  if (query.succeeded !== undefined) conditions.push(query.succeeded ? eq(webhookDeliveries.status, 'succeeded') : sql`${webhookDeliveries.status} <> 'succeeded'`);
  if (query.eventType !== undefined) conditions.push(eq(webhookDeliveries.topic, query.eventType));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ value: count() }).from(webhookDeliveries).where(where),
  ]);
  // The spec's envelope, with the list under `deliveries` rather than `items`.
  const { items, ...page } = pageOf(rows.map(toDeliveryRecord), query, total?.value ?? 0);
  return { deliveries: items, ...page };
}

function requireActive(endpoint: EndpointRow, action: string): void {
  if (!endpoint.isActive) {
    throw new ConflictError(`Webhook endpoint ${endpoint.id} is deactivated; activate it (POST /webhooks/${endpoint.id}/activate) to ${action}.`);
  }
}

/** Queues a signed `webhook.test` ping to the endpoint: one attempt, whatever it subscribes to. */
export async function sendTestPing(db: IdentityExecutor, tenantId: string, endpointId: string, actor: CaseActor, now: Date) {
  return db.transaction(async (tx) => {
    const endpoint = await ownEndpoint(tx, tenantId, endpointId, true);
    requireActive(endpoint, 'send it a test');
    const payload = {
      eventType: TEST_EVENT_TYPE,
      eventId: `evt_${randomUUID()}`,
      timestamp: now.toISOString(),
      apiVersion: 'v1',
      tenantId,
      data: { webhookId: endpoint.id, url: endpoint.url },
    };
    const [row] = await tx
      .insert(webhookDeliveries)
      .values({ topic: TEST_EVENT_TYPE, subscriptionId: endpoint.id, subjectId: null, payload: JSON.stringify(payload), status: 'pending', maxAttempts: 1, nextAttemptAt: now, createdAt: now, traceparent: currentTraceparent() })
      .returning();
    await notifyWorkers(tx, WEBHOOK_DELIVERY_CHANNEL);
    await writeAudit(tx, { tenantId, ...actor, action: 'webhook.test_sent', target: `webhook:${endpoint.id}` }, now);
    return toDeliveryRecord(row!);
  });
}

/**
 * Sends a finished delivery (succeeded or given up) once more: the same row, id and body, so
 * the receiver can dedupe it; one further attempt, signed afresh.
 */
export async function retryDelivery(db: IdentityExecutor, tenantId: string, endpointId: string, deliveryId: string, actor: CaseActor, now: Date) {
  return db.transaction(async (tx) => {
    const endpoint = await ownEndpoint(tx, tenantId, endpointId, true);
    const [row] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.subscriptionId, endpoint.id)))
      .for('update');
    if (!row) throw new NotFoundError(`No delivery with id ${deliveryId} for webhook endpoint ${endpointId}.`);
    requireActive(endpoint, 'retry its deliveries');
    if (row.status === 'pending' || row.status === 'in_flight') {
      throw new ConflictError(`Delivery ${deliveryId} is still ${row.status === 'pending' ? 'scheduled' : 'being sent'} (attempt ${row.attemptCount} of ${row.maxAttempts}); retry it once it has finished.`);
    }
    const [updated] = await tx
      .update(webhookDeliveries)
      // The new attempt belongs to the trace of the request that asked for it.
      .set({ status: 'pending', maxAttempts: row.attemptCount + 1, nextAttemptAt: now, completedAt: null, traceparent: currentTraceparent() })
      .where(eq(webhookDeliveries.id, row.id))
      .returning();
    await notifyWorkers(tx, WEBHOOK_DELIVERY_CHANNEL);
    await writeAudit(tx, { tenantId, ...actor, action: 'webhook.delivery_retried', target: `webhook_delivery:${row.id}` }, now);
    return toDeliveryRecord(updated!);
  });
}

/**
 * After an outage on the partner's side: every delivery of the window [since, until] that was
 * given up is queued again for one more attempt.
 */
export async function recoverDeliveries(db: IdentityExecutor, tenantId: string, endpointId: string, window: { since: Date; until: Date }, actor: CaseActor, now: Date) {
  return db.transaction(async (tx) => {
    const endpoint = await ownEndpoint(tx, tenantId, endpointId, true);
    requireActive(endpoint, 'recover its deliveries');
    const requeued = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', maxAttempts: sql`${webhookDeliveries.attemptCount} + 1`, nextAttemptAt: now, completedAt: null })
      .where(
        and(
          eq(webhookDeliveries.subscriptionId, endpoint.id),
          eq(webhookDeliveries.status, 'failed'),
          gte(webhookDeliveries.createdAt, window.since),
          lte(webhookDeliveries.createdAt, window.until),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (requeued.length > 0) await notifyWorkers(tx, WEBHOOK_DELIVERY_CHANNEL);
    await writeAudit(
      tx,
      { tenantId, ...actor, action: 'webhook.deliveries_recovered', target: `webhook:${endpoint.id}`, after: { since: window.since.toISOString(), until: window.until.toISOString(), requeued: requeued.length } },
      now,
    );
    return { requeued: requeued.length, since: window.since.toISOString(), until: window.until.toISOString() };
  });
}
