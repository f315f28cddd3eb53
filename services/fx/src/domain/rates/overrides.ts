import { NotFoundError } from '@svc/problem-json';
import { and, eq, gt, isNull, lte, or } from 'drizzle-orm';
import { manualOverrides, outboxEvents } from '../../db/schema.js';
import { decimalString, midpoint } from './decimal.js';
import { activeOverrideMid, latestMid, lockRateStream } from './current-rate.js';
import type { RateChangeListener } from './rate-types.js';
import type { FxExecutor } from '../../db/executor.js';

export const OVERRIDE_CHANGED_TOPIC = 'override.changed';

function activeFor(currency: string, now: Date) {
  return and(eq(manualOverrides.currency, currency), lte(manualOverrides.activeFrom, now), or(isNull(manualOverrides.activeTo), gt(manualOverrides.activeTo, now)));
}

/** Replaces any active override of the currency; old ones are closed, not deleted, for the audit trail. */
export async function setOverride(
  tx: FxExecutor,
  input: { currency: string; buy: number; sell: number; reason: string; setBy: string },
  now: Date,
  onRateChanged: RateChangeListener,
): Promise<{ currency: string; buy: string; sell: string; mid: string }> {
  await lockRateStream(tx, input.currency, 'MARKET');
  const previous = (await activeOverrideMid(tx, input.currency, now)) ?? (await latestMid(tx, input.currency, 'MARKET'));
  await tx.update(manualOverrides).set({ activeTo: now }).where(activeFor(input.currency, now));
  const values = { currency: input.currency, buy: decimalString(input.buy), sell: decimalString(input.sell), mid: midpoint(input.buy, input.sell) };
  await tx.insert(manualOverrides).values({ ...values, reason: input.reason, setBy: input.setBy, activeFrom: now });
  await tx.insert(outboxEvents).values({ topic: OVERRIDE_CHANGED_TOPIC, payload: { ...values, active: true }, createdAt: now });
  // The effective MARKET rate is now the override: alerts on it see this as an update.
  await onRateChanged(tx, { currency: input.currency, source: 'MARKET', previous, current: values.mid }, now);
  return values;
}

export async function removeOverride(tx: FxExecutor, currency: string, now: Date, onRateChanged: RateChangeListener): Promise<void> {
  await lockRateStream(tx, currency, 'MARKET');
  const closed = await tx.update(manualOverrides).set({ activeTo: now }).where(activeFor(currency, now)).returning({ id: manualOverrides.id, mid: manualOverrides.mid });
  if (closed.length === 0) throw new NotFoundError(`No active override for ${currency}.`);
  await tx.insert(outboxEvents).values({ topic: OVERRIDE_CHANGED_TOPIC, payload: { currency, active: false }, createdAt: now });
  // The effective rate falls back to the market.
  const current = await latestMid(tx, currency, 'MARKET');
  if (current !== null) await onRateChanged(tx, { currency, source: 'MARKET', previous: closed[0]?.mid ?? null, current }, now);
}
