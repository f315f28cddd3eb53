import { randomUUID } from 'node:crypto';
import { validateTargetUrlField, type TargetPolicy } from '@svc/outbound-http';
import { ForbiddenError, NotFoundError, ValidationError } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import { generateSigningSecret, previousSecretAfterRotation } from '@svc/webhook-signing';
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { alertDeliveries, apiClients, rateAlerts } from '../../db/schema.js';
import type { ApiClient } from '../clients/api-clients.js';
import type { LimitsConfiguration } from '../limits/plans.js';
import { isSupportedCurrency } from '../rates/currencies.js';
import type { FxExecutor } from '../../db/executor.js';
import { watchedMid } from '../rates/current-rate.js';
import { MAX_AMOUNT, MIN_STORED_AMOUNT } from '../rates/decimal.js';
import { RATE_SOURCES } from '../rates/rate-types.js';

export type RateAlertRow = typeof rateAlerts.$inferSelect;

export const alertFieldsSchema = z.object({
  webhookUrl: z.string().max(500, 'must be at most 500 characters'),
  currency: z
    .string()
    .transform((code) => code.trim().toUpperCase())
    .refine(isSupportedCurrency, { error: 'is not a supported currency code' }),
  source: z.enum(RATE_SOURCES),
  alertType: z.int({ error: 'must be an integer from 0 to 3' }).min(0, 'must be an integer from 0 to 3').max(3, 'must be an integer from 0 to 3').meta({ description: '0 ABOVE, 1 BELOW, 2 CHANGE_INCREASE, 3 CHANGE_DECREASE' }),
  // The bounds of a stored rate: a finer level could never be told apart from the rates it is compared with.
  thresholdValue: z
    .number({ error: 'must be a number' })
    .min(MIN_STORED_AMOUNT, `must be at least ${MIN_STORED_AMOUNT.toFixed(8)}`)
    .max(MAX_AMOUNT, 'must be at most 1000000000000')
    .meta({ description: 'A rate level for 0/1; a percent in (0, 1000] for 2, (0, 100) for 3' }),
  label: z.string().max(100, 'must be at most 100 characters').nullable().optional(),
});
export type AlertFields = z.output<typeof alertFieldsSchema>;

/** Cross-field rules: a percent threshold is bounded (a fall of 100% or more cannot happen). */
function checkThreshold(fields: Pick<AlertFields, 'alertType' | 'thresholdValue'>): void {
  const { alertType, thresholdValue } = fields;
  if (alertType === 2 && thresholdValue > 1000) throw new ValidationError('thresholdValue of a CHANGE_INCREASE alert is a percent in (0, 1000].', [{ path: 'thresholdValue', message: 'must be at most 1000 (percent)' }]);
  if (alertType === 3 && thresholdValue >= 100) throw new ValidationError('thresholdValue of a CHANGE_DECREASE alert is a percent in (0, 100).', [{ path: 'thresholdValue', message: 'must be below 100 (percent)' }]);
}

const checkUrl = (url: string, policy: TargetPolicy) => validateTargetUrlField(url, policy, { name: 'webhookUrl', path: 'webhookUrl' });

/** Trigger level and reference for a (re)armed alert: the threshold, or the current rate ± percent. */
async function armedState(tx: FxExecutor, fields: Pick<AlertFields, 'currency' | 'source' | 'alertType' | 'thresholdValue'>, now: Date) {
  if (fields.alertType === 0 || fields.alertType === 1) return { referenceRate: null, triggerLevel: String(fields.thresholdValue), primed: true };
  const reference = await watchedMid(tx, fields.currency, fields.source, now);
  if (reference === null) return { referenceRate: null, triggerLevel: null, primed: true };
  const factor = fields.alertType === 2 ? sql`(1 + ${fields.thresholdValue}::numeric / 100)` : sql`(1 - ${fields.thresholdValue}::numeric / 100)`;
  return { referenceRate: reference, triggerLevel: sql`${reference}::numeric * ${factor}`, primed: true };
}

export function toWebhook(row: RateAlertRow) {
  return {
    id: row.id,
    webhookUrl: row.webhookUrl,
    currency: row.currency,
    source: row.source,
    alertType: row.alertType,
    thresholdValue: Number(row.thresholdValue),
    label: row.label,
    isActive: row.isActive,
    lastDeliveryStatusCode: row.lastDeliveryStatusCode,
    consecutiveFailures: row.consecutiveFailures,
    lastTriggeredUtc: row.lastTriggeredUtc?.toISOString() ?? null,
    createdUtc: row.createdUtc.toISOString(),
  };
}

export interface AlertContext {
  box: SecretBox;
  policy: TargetPolicy;
  limits: LimitsConfiguration;
}

export async function createRateAlert(db: FxExecutor, context: AlertContext, client: ApiClient, fields: AlertFields, now: Date) {
  checkThreshold(fields);
  const webhookUrl = await checkUrl(fields.webhookUrl, context.policy);
  const allowance = context.limits.plans.find((plan) => plan.name === client.plan)?.webhookAllowance ?? 0;
  const signingSecret = generateSigningSecret();
  const id = randomUUID();
  const row = await db.transaction(async (tx) => {
    // The client row lock serialises creations of one client: two racing requests cannot both take the last place.
    await tx.select({ id: apiClients.id }).from(apiClients).where(eq(apiClients.id, client.id)).for('update');
    const [existing] = await tx.select({ n: count() }).from(rateAlerts).where(eq(rateAlerts.clientId, client.id));
    if ((existing?.n ?? 0) >= allowance) {
      throw new ForbiddenError(`The ${client.plan} plan allows ${allowance} webhook${allowance === 1 ? '' : 's'}, and this client has ${existing?.n ?? 0}. Delete one or move to a larger plan.`);
    }
    const armed = await armedState(tx, fields, now);
    const [inserted] = await tx
      .insert(rateAlerts)
      .values({
        id,
        clientId: client.id,
        webhookUrl,
        currency: fields.currency,
        source: fields.source,
        alertType: fields.alertType,
        thresholdValue: String(fields.thresholdValue),
        label: fields.label ?? null,
        ...armed,
        // The alert id is the associated data: a sealed secret copied onto another alert does not open.
        signingSecretSealed: context.box.encrypt(signingSecret, id),
        createdUtc: now,
      })
      .returning();
    return inserted!;
  });
  return { ...toWebhook(row), signingSecret };
}

export async function listRateAlerts(db: FxExecutor, client: ApiClient) {
  const rows = await db.select().from(rateAlerts).where(eq(rateAlerts.clientId, client.id)).orderBy(asc(rateAlerts.createdUtc), asc(rateAlerts.id));
  return rows.map(toWebhook);
}

async function ownAlert(tx: FxExecutor, client: ApiClient, id: string, lock = false): Promise<RateAlertRow> {
  const query = tx.select().from(rateAlerts).where(and(eq(rateAlerts.id, id), eq(rateAlerts.clientId, client.id)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError(`No webhook with id ${id}.`);
  return row;
}

/** One of the client's webhooks as stored (its sealed secrets included); another client's is a 404. */
export const getRateAlert = (db: FxExecutor, client: ApiClient, id: string) => ownAlert(db, client, id);

export type AlertChanges = Partial<AlertFields> & { isActive?: boolean | undefined };

/**
 * PUT: any subset of the creatable fields plus isActive. A change to what is watched, or
 * isActive: true, re-arms the alert (primed, reference = current rate); re-enabling also
 * clears consecutiveFailures.
 */
export async function updateRateAlert(db: FxExecutor, context: AlertContext, client: ApiClient, id: string, changes: AlertChanges, now: Date) {
  const webhookUrl = changes.webhookUrl === undefined ? undefined : await checkUrl(changes.webhookUrl, context.policy);
  const row = await db.transaction(async (tx) => {
    const before = await ownAlert(tx, client, id, true);
    const merged = {
      currency: changes.currency ?? before.currency,
      source: changes.source ?? before.source,
      alertType: changes.alertType ?? before.alertType,
      thresholdValue: changes.thresholdValue ?? Number(before.thresholdValue),
    };
    checkThreshold(merged);
    const rearm =
      changes.isActive === true ||
      merged.currency !== before.currency ||
      merged.source !== before.source ||
      merged.alertType !== before.alertType ||
      merged.thresholdValue !== Number(before.thresholdValue);
    const [updated] = await tx
      .update(rateAlerts)
      .set({
        ...(webhookUrl === undefined ? {} : { webhookUrl }),
        ...(changes.label === undefined ? {} : { label: changes.label }),
        ...(changes.isActive === undefined ? {} : { isActive: changes.isActive }),
        ...(changes.isActive === true ? { consecutiveFailures: 0 } : {}),
        currency: merged.currency,
        source: merged.source,
        alertType: merged.alertType,
        thresholdValue: String(merged.thresholdValue),
        ...(rearm ? await armedState(tx, merged, now) : {}),
      })
      .where(eq(rateAlerts.id, before.id))
      .returning();
    return updated!;
  });
  return toWebhook(row);
}

/** Deletes the webhook and cancels its deliveries not yet sent. */
export async function deleteRateAlert(db: FxExecutor, client: ApiClient, id: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await ownAlert(tx, client, id, true);
    await tx
      .update(alertDeliveries)
      .set({ status: 'failed', lastError: 'webhook deleted', completedAt: now })
      .where(and(eq(alertDeliveries.subscriptionId, row.id), inArray(alertDeliveries.status, ['pending'])));
    await tx.delete(rateAlerts).where(eq(rateAlerts.id, row.id));
  });
}

/**
 * A new secret, shown once. Without a grace window the old one stops signing at once; with
 * previousSecretValidSeconds it also signs the Standard Webhooks header until then.
 */
export async function rotateAlertSecret(
  db: FxExecutor,
  context: AlertContext,
  client: ApiClient,
  id: string,
  options: { previousSecretValidSeconds?: number | undefined; now: Date },
): Promise<{ signingSecret: string; previousSecretExpiresUtc?: string }> {
  const signingSecret = generateSigningSecret();
  const previous = await db.transaction(async (tx) => {
    const row = await ownAlert(tx, client, id, true);
    const kept = previousSecretAfterRotation({ replacedSealed: row.signingSecretSealed, validSeconds: options.previousSecretValidSeconds, now: options.now });
    await tx
      .update(rateAlerts)
      .set({ signingSecretSealed: context.box.encrypt(signingSecret, row.id), previousSigningSecretSealed: kept?.sealed ?? null, previousSecretExpiresUtc: kept?.expiresAt ?? null })
      .where(eq(rateAlerts.id, row.id));
    return kept;
  });
  return { signingSecret, ...(previous ? { previousSecretExpiresUtc: previous.expiresAt.toISOString() } : {}) };
}
