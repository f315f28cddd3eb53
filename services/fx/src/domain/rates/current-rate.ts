import { and, desc, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';
import { manualOverrides, rateObservations } from '../../db/schema.js';
import type { FxExecutor } from '../../db/executor.js';
import type { RateSource } from './rate-types.js';

/** Latest stored mid of a currency from one source, as published. */
export async function latestMid(tx: FxExecutor, currency: string, source: RateSource): Promise<string | null> {
  const [row] = await tx
    .select({ mid: rateObservations.mid })
    .from(rateObservations)
    .where(and(eq(rateObservations.currency, currency), eq(rateObservations.source, source)))
    .orderBy(desc(rateObservations.observedAt))
    .limit(1);
  return row?.mid ?? null;
}

export async function activeOverrideMid(tx: FxExecutor, currency: string, now: Date): Promise<string | null> {
  const [row] = await tx
    .select({ mid: manualOverrides.mid })
    .from(manualOverrides)
    .where(and(eq(manualOverrides.currency, currency), lte(manualOverrides.activeFrom, now), or(isNull(manualOverrides.activeTo), gt(manualOverrides.activeTo, now))))
    .orderBy(desc(manualOverrides.activeFrom))
    .limit(1);
  return row?.mid ?? null;
}

/** The rate an alert watches: CBS = the official mid; MARKET = the effective mid (an active override, else the market). */
export async function watchedMid(tx: FxExecutor, currency: string, source: RateSource, now: Date): Promise<string | null> {
  if (source === 'MARKET') return (await activeOverrideMid(tx, currency, now)) ?? (await latestMid(tx, currency, 'MARKET'));
  return latestMid(tx, currency, 'CBS');
}

/**
 * Serialises the writers of one (currency, source) until the transaction ends: the previous
 * rate a writer reads stays the previous rate until it commits, so jump checks and rate
 * listeners (alert crossings) see one consistent before/after and nothing fires twice.
 */
export async function lockRateStream(tx: FxExecutor, currency: string, source: RateSource): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`fx:alerts:${currency}:${source}`}, 0))`);
}
