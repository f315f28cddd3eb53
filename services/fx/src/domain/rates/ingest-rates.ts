import type { FieldError } from '@svc/problem-json';
import { ValidationError } from '@svc/problem-json';
import { and, desc, eq } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { outboxEvents, rateObservations } from '../../db/schema.js';
import { activeOverrideMid, lockRateStream } from './current-rate.js';
import { isSupportedCurrency } from './currencies.js';
import { amountProblem, decimalString, midpoint } from './decimal.js';

import type { RateChangeListener, RateSource } from './rate-types.js';

export interface RateInput {
  currency: string;
  buy: number;
  sell: number;
  mid?: number | undefined;
}

export interface IngestRatesInput {
  source: RateSource;
  observedAt?: Date | undefined;
  rates: RateInput[];
  /** Accept changes over the jump limit (operator confirmed a real move). */
  force?: boolean | undefined;
  /** The upstream sources these rates were combined from (FX_SOURCES_FILE). */
  contributors?: string[] | undefined;
}

/** A move of more than this against the latest stored mid is refused without `force`. */
export const MAX_JUMP_RATIO = 0.5;
export const RATES_INGESTED_TOPIC = 'rates.ingested';

export interface IngestedRate {
  currency: string;
  buy: string;
  sell: string;
  mid: string;
  previousMid: string | null;
}

/**
 * The one way rates enter fx (admin API, pollers, CLI import): validates every item first
 * (400 naming `rates[i].field`), then writes the observations, one outbox event and the
 * alerts' firings in the caller's transaction, so alerts see exactly the committed updates.
 */
export async function ingestRates(tx: FxExecutor, input: IngestRatesInput, now: Date, onRateChanged: RateChangeListener): Promise<IngestedRate[]> {
  const observedAt = input.observedAt ?? now;
  const errors: FieldError[] = [];
  if (observedAt.getTime() > now.getTime() + 5 * 60_000) errors.push({ path: 'timestampUtc', message: 'must not be in the future' });
  if (input.rates.length === 0) errors.push({ path: 'rates', message: 'must contain at least one rate' });
  const seen = new Set<string>();
  input.rates.forEach((rate, index) => {
    const at = `rates[${index}]`;
    if (!isSupportedCurrency(rate.currency)) errors.push({ path: `${at}.currency`, message: `unsupported currency: ${rate.currency}` });
    if (seen.has(rate.currency)) errors.push({ path: `${at}.currency`, message: `duplicate currency: ${rate.currency}` });
    seen.add(rate.currency);
    // Pollers and CSV imports arrive here without the API's schema: the same bounds for all.
    for (const field of ['buy', 'sell', 'mid'] as const) {
      const value = rate[field];
      const problem = value === undefined ? null : amountProblem(value);
      if (problem) errors.push({ path: `${at}.${field}`, message: problem });
    }
    if (rate.buy > rate.sell) errors.push({ path: `${at}.buy`, message: 'must not exceed sell' });
    if (rate.mid !== undefined && (rate.mid < rate.buy || rate.mid > rate.sell)) errors.push({ path: `${at}.mid`, message: 'must lie between buy and sell' });
  });
  if (errors.length > 0) throw new ValidationError('The rates are invalid.', errors);

  // One writer per (currency, source) at a time: the previous rate read below stays the previous
  // rate until commit, so the jump check and alert crossings see a consistent before/after.
  for (const currency of [...seen].sort()) await lockRateStream(tx, currency, input.source);
  const accepted: IngestedRate[] = [];
  for (const [index, rate] of input.rates.entries()) {
    const mid = rate.mid === undefined ? midpoint(rate.buy, rate.sell) : decimalString(rate.mid);
    const [previous] = await tx
      .select({ mid: rateObservations.mid })
      .from(rateObservations)
      .where(and(eq(rateObservations.currency, rate.currency), eq(rateObservations.source, input.source)))
      .orderBy(desc(rateObservations.observedAt))
      .limit(1);
    if (previous && !input.force) {
      // Ratio check only gates acceptance; the stored values stay exact decimal strings.
      const change = Math.abs(Number(mid) - Number(previous.mid)) / Number(previous.mid);
      if (change > MAX_JUMP_RATIO) {
        errors.push({ path: `rates[${index}].mid`, message: `changes ${(change * 100).toFixed(1)}% against the latest rate ${previous.mid}; send "force": true if real` });
        continue;
      }
    }
    accepted.push({ currency: rate.currency, buy: decimalString(rate.buy), sell: decimalString(rate.sell), mid, previousMid: previous?.mid ?? null });
  }
  if (errors.length > 0) throw new ValidationError('A rate moved more than the allowed jump.', errors);

  await tx.insert(rateObservations).values(accepted.map((rate) => ({ source: input.source, currency: rate.currency, buy: rate.buy, sell: rate.sell, mid: rate.mid, observedAt, contributors: input.contributors ?? null })));
  await tx.insert(outboxEvents).values({
    topic: RATES_INGESTED_TOPIC,
    payload: { source: input.source, observedAt: observedAt.toISOString(), rates: accepted },
    createdAt: now,
  });
  for (const rate of accepted) {
    // MARKET alerts watch the effective rate: while an override is active the market does not move it.
    if (input.source === 'MARKET' && (await activeOverrideMid(tx, rate.currency, now)) !== null) continue;
    await onRateChanged(tx, { currency: rate.currency, source: input.source, previous: rate.previousMid, current: rate.mid }, now);
  }
  return accepted;
}
