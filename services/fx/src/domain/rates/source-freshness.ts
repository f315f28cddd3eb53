import { max } from 'drizzle-orm';
import { rateObservations } from '../../db/schema.js';
import type { FxExecutor } from '../../db/executor.js';
import type { RateSource } from './rate-types.js';

export interface SourceFreshness {
  lastUpdateUtc: string | null;
  ageSeconds: number | null;
  stale: boolean;
}

/** Newest observation per source; a source with no data, or older than staleAfterSeconds, is stale. */
export async function sourceFreshness(db: FxExecutor, now: Date, staleAfterSeconds: number): Promise<Record<RateSource, SourceFreshness>> {
  const rows = await db.select({ source: rateObservations.source, newest: max(rateObservations.observedAt) }).from(rateObservations).groupBy(rateObservations.source);
  const describe = (source: RateSource): SourceFreshness => {
    const newest = rows.find((row) => row.source === source)?.newest ?? null;
    if (!newest) return { lastUpdateUtc: null, ageSeconds: null, stale: true };
    const ageSeconds = Math.max(0, Math.floor((now.getTime() - newest.getTime()) / 1000));
    return { lastUpdateUtc: newest.toISOString(), ageSeconds, stale: ageSeconds > staleAfterSeconds };
  };
  return { CBS: describe('CBS'), MARKET: describe('MARKET') };
}
