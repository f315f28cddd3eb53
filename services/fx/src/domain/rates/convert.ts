import { NotFoundError, ValidationError } from '@svc/problem-json';
import { and, desc, eq, lt } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { rateObservations } from '../../db/schema.js';
import { inNewPounds, type Redenomination } from './history.js';
import { loadLatestRates } from './latest-rates.js';
import type { RateSource } from './rate-types.js';

const DAY_MS = 86_400_000;
/** Significant digits of a served conversion rate: enough for SYP→KWD (≈ 0.0000236) and LBP→SYP alike. */
const RATE_DIGITS = 10;
const RESULT_DECIMALS = 8;

export interface ConversionQuery {
  from: string;
  to: string;
  amount: number;
  source: RateSource;
  /** A past UTC day: that day's close; absent: the current rate. */
  date?: string | undefined;
}

interface Leg {
  /** SYP (current pound) per one unit. */
  mid: number;
  observedAt: Date | null;
}

/** The mid of one currency in current pounds: SYP is 1; a rate from before the redenomination is rescaled. */
async function legOf(db: FxExecutor, currency: string, query: ConversionQuery, now: Date, redenomination: Redenomination): Promise<Leg> {
  if (currency === 'SYP') return { mid: 1, observedAt: null };
  let found: { mid: string; observedAt: Date } | undefined;
  if (query.date === undefined) {
    const latest = await loadLatestRates(db, now);
    // MARKET converts at the effective rate (an active manual override wins), like the page's converter.
    found = (query.source === 'CBS' ? latest.cbs : latest.effective).find((rate) => rate.currency === currency);
  } else {
    const endOfDay = new Date(new Date(`${query.date}T00:00:00.000Z`).getTime() + DAY_MS);
    [found] = await db
      .select({ mid: rateObservations.mid, observedAt: rateObservations.observedAt })
      .from(rateObservations)
      .where(and(eq(rateObservations.currency, currency), eq(rateObservations.source, query.source), lt(rateObservations.observedAt, endOfDay)))
      .orderBy(desc(rateObservations.observedAt))
      .limit(1);
  }
  if (!found) throw new NotFoundError(`No ${query.source} rate for ${currency}${query.date ? ` on or before ${query.date}` : ''}.`);
  const mid = found.observedAt < redenomination.date ? inNewPounds(found.mid, redenomination) : found.mid;
  return { mid: Number(mid), observedAt: found.observedAt };
}

/**
 * `amount` of `from` in `to` at mid rates, crossed through SYP when neither side is SYP.
 * Both legs are in the current pound, so a conversion across the redenomination is plain
 * arithmetic; the rate's time is that of its older leg (a cross rate is as old as its stalest input).
 */
export async function convertAmount(db: FxExecutor, query: ConversionQuery, now: Date, redenomination: Redenomination) {
  if (query.date !== undefined && query.date > now.toISOString().slice(0, 10)) {
    throw new ValidationError('The date is in the future.', [{ path: 'query.date', message: 'must be today or a past day' }]);
  }
  const [from, to] = await Promise.all([legOf(db, query.from, query, now, redenomination), legOf(db, query.to, query, now, redenomination)]);
  const rate = Number((from.mid / to.mid).toPrecision(RATE_DIGITS));
  const times = [from.observedAt, to.observedAt].filter((time): time is Date => time !== null).sort((left, right) => left.getTime() - right.getTime());
  return {
    from: query.from,
    to: query.to,
    amount: query.amount,
    source: query.source,
    rate,
    rateTimestampUtc: (times[0] ?? now).toISOString(),
    result: Number((query.amount * rate).toFixed(RESULT_DECIMALS)),
  };
}
