import { NotFoundError } from '@svc/problem-json';
import { and, asc, eq, gt, isNotNull, isNull, lte, or } from 'drizzle-orm';
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
  input: { currency: string; buy: number; sell: number; reason: string; setBy: string; expiresAt?: Date | undefined },
  now: Date,
  onRateChanged: RateChangeListener,
): Promise<{ currency: string; buy: string; sell: string; mid: string }> {
  await lockRateStream(tx, input.currency, 'MARKET');
  const previous = (await activeOverrideMid(tx, input.currency, now)) ?? (await latestMid(tx, input.currency, 'MARKET'));
  await tx.update(manualOverrides).set({ activeTo: now, endAnnouncedAt: now }).where(activeFor(input.currency, now));
  const values = { currency: input.currency, buy: decimalString(input.buy), sell: decimalString(input.sell), mid: midpoint(input.buy, input.sell) };
  await tx.insert(manualOverrides).values({ ...values, reason: input.reason, setBy: input.setBy, activeFrom: now, activeTo: input.expiresAt ?? null });
  await tx.insert(outboxEvents).values({ topic: OVERRIDE_CHANGED_TOPIC, payload: { ...values, active: true, expiresUtc: input.expiresAt?.toISOString() ?? null }, createdAt: now });
  // The effective MARKET rate is now the override: alerts on it see this as an update.
  await onRateChanged(tx, { currency: input.currency, source: 'MARKET', previous, current: values.mid }, now);
  return values;
}

export async function removeOverride(tx: FxExecutor, currency: string, now: Date, onRateChanged: RateChangeListener): Promise<void> {
  await lockRateStream(tx, currency, 'MARKET');
  const closed = await tx.update(manualOverrides).set({ activeTo: now, endAnnouncedAt: now }).where(activeFor(currency, now)).returning({ id: manualOverrides.id, mid: manualOverrides.mid });
  if (closed.length === 0) throw new NotFoundError(`No active override for ${currency}.`);
  await tx.insert(outboxEvents).values({ topic: OVERRIDE_CHANGED_TOPIC, payload: { currency, active: false }, createdAt: now });
  // The effective rate falls back to the market.
  const current = await latestMid(tx, currency, 'MARKET');
  if (current !== null) await onRateChanged(tx, { currency, source: 'MARKET', previous: closed[0]?.mid ?? null, current }, now);
}

/**
 * Overrides whose expiry time has passed and that nobody has announced yet: each is marked
 * announced, recorded in the outbox and handed to `announce` (live streams) while alerts see
 * the effective rate fall back to the market, in one transaction per override. SKIP LOCKED:
 * with several instances each expiry is announced once.
 */
export async function announceExpiredOverrides(db: FxExecutor, now: Date, onRateChanged: RateChangeListener, announce: (tx: FxExecutor, currency: string) => Promise<void>): Promise<string[]> {
  const announced: string[] = [];
  for (;;) {
    const currency = await db.transaction(async (tx) => {
      const [expired] = await tx
        .select({ id: manualOverrides.id, currency: manualOverrides.currency, mid: manualOverrides.mid })
        .from(manualOverrides)
        .where(and(isNotNull(manualOverrides.activeTo), lte(manualOverrides.activeTo, now), isNull(manualOverrides.endAnnouncedAt)))
        .orderBy(asc(manualOverrides.activeTo))
        .limit(1)
        .for('update', { skipLocked: true });
      if (!expired) return null;
      await lockRateStream(tx, expired.currency, 'MARKET');
      await tx.update(manualOverrides).set({ endAnnouncedAt: now }).where(eq(manualOverrides.id, expired.id));
      await tx.insert(outboxEvents).values({ topic: OVERRIDE_CHANGED_TOPIC, payload: { currency: expired.currency, active: false, expired: true }, createdAt: now });
      // A newer override set meanwhile keeps the effective rate; otherwise it falls back to the market.
      const current = (await activeOverrideMid(tx, expired.currency, now)) ?? (await latestMid(tx, expired.currency, 'MARKET'));
      if (current !== null) await onRateChanged(tx, { currency: expired.currency, source: 'MARKET', previous: expired.mid, current }, now);
      await announce(tx, expired.currency);
      return expired.currency;
    });
    if (currency === null) return announced;
    announced.push(currency);
  }
}
