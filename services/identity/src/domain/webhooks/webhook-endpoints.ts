import { randomUUID } from 'node:crypto';
import { validateTargetUrlField, type TargetPolicy } from '@svc/outbound-http';
import { ConflictError, NotFoundError } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import { generateSigningSecret, previousSecretAfterRotation } from '@svc/webhook-signing';
import { and, asc, count, eq } from 'drizzle-orm';
import { tenants, webhookDeliveries, webhookEndpoints, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import type { CaseActor } from '../common/actor.js';
import { MAX_ENDPOINTS_PER_TENANT } from './webhook-events.js';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** What registration and updates need besides the database. */
export interface EndpointContext {
  box: SecretBox;
  policy: TargetPolicy;
}

/** The spec's webhook endpoint; the signing secret is never part of it. */
export function toEndpoint(row: EndpointRow) {
  return { id: row.id, url: row.url, eventTypes: row.eventTypes, isActive: row.isActive, createdAt: row.createdAt.toISOString() };
}

const checkedUrl = (url: string, policy: TargetPolicy) => validateTargetUrlField(url, policy, { name: 'url', path: 'body.url' });

/** The endpoint of this tenant, locked for the rest of the transaction when asked; 404 for another tenant's. */
export async function ownEndpoint(tx: IdentityExecutor, tenantId: string, id: string, lock = false): Promise<EndpointRow> {
  const query = tx
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.tenantId, tenantId)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError(`No webhook endpoint with id ${id}.`);
  return row;
}

export async function createEndpoint(
  db: IdentityExecutor,
  context: EndpointContext,
  tenantId: string,
  input: { url: string; eventTypes: string[] },
  actor: CaseActor,
  now: Date,
) {
  const url = await checkedUrl(input.url, context.policy);
  const signingSecret = generateSigningSecret();
  const id = randomUUID();
  const row = await db.transaction(async (tx) => {
    // The tenant row lock serialises registrations: two racing requests cannot both take the last place.
    await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).for('update');
    const [existing] = await tx.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.tenantId, tenantId));
    if ((existing?.n ?? 0) >= MAX_ENDPOINTS_PER_TENANT) {
      throw new ConflictError(`A tenant may register at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints and this one has ${existing?.n ?? 0}. Delete one or reuse one with PUT.`);
    }
    const [inserted] = await tx
      .insert(webhookEndpoints)
      // The endpoint id is the associated data: a sealed secret copied onto another endpoint does not open.
      .values({ id, tenantId, url, eventTypes: input.eventTypes, isActive: true, signingSecretSealed: context.box.encrypt(signingSecret, id), createdAt: now, updatedAt: now })
      .returning();
    await writeAudit(tx, { tenantId, ...actor, action: 'webhook.created', target: `webhook:${id}`, after: { url, eventTypes: input.eventTypes } }, now);
    return inserted!;
  });
  return { endpoint: toEndpoint(row), signingSecret };
}

export async function listEndpoints(db: IdentityExecutor, tenantId: string) {
  const rows = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.tenantId, tenantId)).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map(toEndpoint);
}

export async function getEndpoint(db: IdentityExecutor, tenantId: string, id: string) {
  return toEndpoint(await ownEndpoint(db, tenantId, id));
}

/** PUT: url and/or eventTypes; deliveries still pending go to the new URL (it is read at each attempt). */
export async function updateEndpoint(
  db: IdentityExecutor,
  context: EndpointContext,
  tenantId: string,
  id: string,
  changes: { url?: string | undefined; eventTypes?: string[] | undefined },
  actor: CaseActor,
  now: Date,
) {
  const url = changes.url === undefined ? undefined : await checkedUrl(changes.url, context.policy);
  const row = await db.transaction(async (tx) => {
    const before = await ownEndpoint(tx, tenantId, id, true);
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({ ...(url === undefined ? {} : { url }), ...(changes.eventTypes === undefined ? {} : { eventTypes: changes.eventTypes }), updatedAt: now })
      .where(eq(webhookEndpoints.id, before.id))
      .returning();
    await writeAudit(
      tx,
      { tenantId, ...actor, action: 'webhook.updated', target: `webhook:${id}`, before: { url: before.url, eventTypes: before.eventTypes }, after: { url: updated!.url, eventTypes: updated!.eventTypes } },
      now,
    );
    return updated!;
  });
  return toEndpoint(row);
}

/**
 * Pause or resume. A paused endpoint gets no new deliveries; those already queued wait
 * (the worker claims only deliveries of active endpoints) and go out when it is resumed.
 */
export async function setEndpointActive(db: IdentityExecutor, tenantId: string, id: string, isActive: boolean, actor: CaseActor, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await ownEndpoint(tx, tenantId, id, true);
    if (row.isActive === isActive) return;
    await tx.update(webhookEndpoints).set({ isActive, updatedAt: now }).where(eq(webhookEndpoints.id, row.id));
    await writeAudit(tx, { tenantId, ...actor, action: isActive ? 'webhook.activated' : 'webhook.deactivated', target: `webhook:${id}` }, now);
  });
}

/**
 * A new secret, shown once. Without a grace window the old one stops signing at once (the next attempt is
 * signed with the new one only), as the spec says; with previousSecretValidSeconds it also signs the
 * Standard Webhooks header until then, so receivers can switch without refusing a delivery.
 */
export async function rotateEndpointSecret(
  db: IdentityExecutor,
  context: EndpointContext,
  tenantId: string,
  id: string,
  options: { previousSecretValidSeconds?: number | undefined },
  actor: CaseActor,
  now: Date,
) {
  const newSigningSecret = generateSigningSecret();
  const previous = await db.transaction(async (tx) => {
    const row = await ownEndpoint(tx, tenantId, id, true);
    const kept = previousSecretAfterRotation({ replacedSealed: row.signingSecretSealed, validSeconds: options.previousSecretValidSeconds, now });
    await tx
      .update(webhookEndpoints)
      .set({
        signingSecretSealed: context.box.encrypt(newSigningSecret, row.id),
        previousSigningSecretSealed: kept?.sealed ?? null,
        previousSecretExpiresAt: kept?.expiresAt ?? null,
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, row.id));
    const after = kept ? { previousSecretExpiresAt: kept.expiresAt.toISOString() } : undefined;
    await writeAudit(tx, { tenantId, ...actor, action: 'webhook.secret_rotated', target: `webhook:${id}`, ...(after ? { after } : {}) }, now);
    return kept;
  });
  return { newSigningSecret, ...(previous ? { previousSecretExpiresAt: previous.expiresAt.toISOString() } : {}) };
}

/** Deletes the endpoint with its delivery history; a delivery in flight right now may still arrive once. */
export async function deleteEndpoint(db: IdentityExecutor, tenantId: string, id: string, actor: CaseActor, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await ownEndpoint(tx, tenantId, id, true);
    await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, row.id));
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, row.id));
    await writeAudit(tx, { tenantId, ...actor, action: 'webhook.deleted', target: `webhook:${id}`, before: { url: row.url, eventTypes: row.eventTypes } }, now);
  });
}
