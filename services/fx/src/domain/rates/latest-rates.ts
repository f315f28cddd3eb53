import { and, asc, desc, eq, gt, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import { manualOverrides, rateObservations } from '../../db/schema.js';
import { roundRate } from './currencies.js';
import { inNewPounds, type Redenomination } from './history.js';
import type { FxExecutor } from '../../db/executor.js';
import type { RateSource } from './rate-types.js';

/** A stored rate, values still as exact numeric strings. */
export interface StoredRate {
  currency: string;
  buy: string;
  sell: string;
  mid: string;
  observedAt: Date;
  isManualOverride: boolean;
}

export interface RateEntry {
  currency: string;
  buy: number;
  sell: number;
  mid: number;
  timestampUtc: string;
  isManualOverride: boolean;
  /** The previous day's close (see previousDayMids); null without one, and for a manual override. */
  previousMid: number | null;
}

export interface LatestRates {
  cbs: StoredRate[];
  market: StoredRate[];
  /** Active manual override for a currency, else its latest market rate. */
  effective: StoredRate[];
}

async function latestBySource(tx: FxExecutor, source: RateSource): Promise<StoredRate[]> {
  const rows = await tx
    .selectDistinctOn([rateObservations.currency], {
      currency: rateObservations.currency,
      buy: rateObservations.buy,
      sell: rateObservations.sell,
      mid: rateObservations.mid,
      observedAt: rateObservations.observedAt,
    })
    .from(rateObservations)
    .where(inArray(rateObservations.source, [source]))
    .orderBy(asc(rateObservations.currency), desc(rateObservations.observedAt));
  return rows.map((row) => ({ ...row, isManualOverride: false }));
}

export async function activeOverrides(tx: FxExecutor, now: Date): Promise<StoredRate[]> {
  const rows = await tx
    .selectDistinctOn([manualOverrides.currency], {
      currency: manualOverrides.currency,
      buy: manualOverrides.buy,
      sell: manualOverrides.sell,
      mid: manualOverrides.mid,
      observedAt: manualOverrides.activeFrom,
    })
    .from(manualOverrides)
    .where(and(lte(manualOverrides.activeFrom, now), or(isNull(manualOverrides.activeTo), gt(manualOverrides.activeTo, now))))
    .orderBy(asc(manualOverrides.currency), desc(manualOverrides.activeFrom));
  return rows.map((row) => ({ ...row, isManualOverride: true }));
}

export async function loadLatestRates(tx: FxExecutor, now: Date): Promise<LatestRates> {
  const [cbs, market, overrides] = await Promise.all([latestBySource(tx, 'CBS'), latestBySource(tx, 'MARKET'), activeOverrides(tx, now)]);
  const effectiveByCurrency = new Map<string, StoredRate>(market.map((rate) => [rate.currency, rate]));
  for (const override of overrides) effectiveByCurrency.set(override.currency, override);
  const effective = [...effectiveByCurrency.values()].sort((left, right) => left.currency.localeCompare(right.currency));
  return { cbs, market, effective };
}

export function toRateEntry(rate: StoredRate, previousMid: string | null = null): RateEntry {
  return {
    currency: rate.currency,
    buy: roundRate(rate.buy, rate.currency),
    sell: roundRate(rate.sell, rate.currency),
    mid: roundRate(rate.mid, rate.currency),
    timestampUtc: rate.observedAt.toISOString(),
    isManualOverride: rate.isManualOverride,
    previousMid: previousMid === null ? null : roundRate(previousMid, rate.currency),
  };
}

const DAY_MS = 86_400_000;
const startOfUtcDay = (date: Date) => new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS);

/**
 * Per currency of `latest`, the mid of its newest observation on an earlier UTC day than the
 * latest one: the previous day's close, which a change "against the previous day" is measured
 * from (a day without data is skipped, so a Monday compares with Friday). One query per source.
 * A close from before the redenomination is rescaled when the latest rate is after it, so the
 * two are in the same pound.
 */
export async function previousDayMids(tx: FxExecutor, source: RateSource, latest: StoredRate[], redenomination: Redenomination): Promise<Map<string, string>> {
  if (latest.length === 0) return new Map();
  const rows = await tx
    .selectDistinctOn([rateObservations.currency], { currency: rateObservations.currency, mid: rateObservations.mid, observedAt: rateObservations.observedAt })
    .from(rateObservations)
    .where(
      and(
        eq(rateObservations.source, source),
        or(...latest.map((rate) => and(eq(rateObservations.currency, rate.currency), lt(rateObservations.observedAt, startOfUtcDay(rate.observedAt))))),
      ),
    )
    .orderBy(asc(rateObservations.currency), desc(rateObservations.observedAt));
  const latestAt = new Map(latest.map((rate) => [rate.currency, rate.observedAt]));
  return new Map(
    rows.map((row) => {
      const latestObservedAt = latestAt.get(row.currency) ?? row.observedAt;
      const crossed = row.observedAt < redenomination.date && latestObservedAt >= redenomination.date;
      return [row.currency, crossed ? inNewPounds(row.mid, redenomination) : row.mid];
    }),
  );
}

export interface CrossRate {
  currency: string;
  buy: number;
  sell: number;
  mid: number;
  timestampUtc: string;
}

/** Decimals for "units of X per USD": enough to keep small cross rates (KWD ≈ 0.31) meaningful. */
const CROSS_DECIMALS = 6;
const roundCross = (value: number) => Number(value.toFixed(CROSS_DECIMALS));

/**
 * USD cross rates from effective SYP rates. 1 USD = mid(USD)/mid(X) units of X. The client
 * buying X per USD gets the worse side of both legs (buy(USD)/sell(X)), selling gets
 * sell(USD)/buy(X), so the spread only ever widens. Derived values, computed in floating
 * point and rounded to CROSS_DECIMALS on output (recorded in docs/decisions/0036-usd-cross-rates.md).
 */
export function usdCrossRates(effective: StoredRate[]): { rates: CrossRate[]; newest: Date | null } {
  const usd = effective.find((rate) => rate.currency === 'USD');
  if (!usd) return { rates: [], newest: null };
  const usdBuy = Number(usd.buy);
  const usdSell = Number(usd.sell);
  const usdMid = Number(usd.mid);
  let newest = usd.observedAt;
  const rates: CrossRate[] = [
    { currency: 'SYP', buy: roundCross(usdBuy), sell: roundCross(usdSell), mid: roundCross(usdMid), timestampUtc: usd.observedAt.toISOString() },
  ];
  for (const rate of effective) {
    if (rate.currency === 'USD') continue;
    const observedAt = rate.observedAt > usd.observedAt ? rate.observedAt : usd.observedAt;
    if (observedAt > newest) newest = observedAt;
    rates.push({
      currency: rate.currency,
      buy: roundCross(usdBuy / Number(rate.sell)),
      sell: roundCross(usdSell / Number(rate.buy)),
      mid: roundCross(usdMid / Number(rate.mid)),
      timestampUtc: observedAt.toISOString(),
    });
  }
  return { rates, newest };
}

export interface LatestRateLists {
  cbsRates: RateEntry[];
  marketRates: RateEntry[];
  effectiveRates: RateEntry[];
}

/**
 * The three lists of /rates/latest (optionally only `currencies`), each entry with its previous
 * day's close: what the endpoint serves and what a live stream's snapshot and changes carry.
 */
export async function latestRateLists(tx: FxExecutor, now: Date, redenomination: Redenomination, currencies: readonly string[] | null = null): Promise<LatestRateLists> {
  const latest = await loadLatestRates(tx, now);
  const [cbsPrevious, marketPrevious] = await Promise.all([previousDayMids(tx, 'CBS', latest.cbs, redenomination), previousDayMids(tx, 'MARKET', latest.market, redenomination)]);
  // An override has no previous day of its own; the effective entries otherwise are the market ones.
  const keep = (rates: StoredRate[], previous: Map<string, string>) =>
    (currencies ? rates.filter((rate) => currencies.includes(rate.currency)) : rates).map((rate) => toRateEntry(rate, rate.isManualOverride ? null : (previous.get(rate.currency) ?? null)));
  return { cbsRates: keep(latest.cbs, cbsPrevious), marketRates: keep(latest.market, marketPrevious), effectiveRates: keep(latest.effective, marketPrevious) };
}
