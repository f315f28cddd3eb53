import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { FxExecutor } from '../db/executor.js';
import { sourceLeases } from '../db/schema.js';

const LEASE = 'upstream-sources';

/** One source's state as the fetching instance last saw it; every instance's /health is computed from it. */
export interface SharedSourceState {
  name: string;
  lastSuccessUtc: string | null;
  lastError: string | null;
  consecutiveFailures: number;
  /** Time of its newest quote (of its last success when it had none). */
  newestUtc: string | null;
  contributing: boolean;
  nextAttemptUtc: string;
}

export interface SharedSourcesState {
  sources: SharedSourceState[];
  stalePrices: string[];
  /** Per price, the observation time (ms) last written, so a new holder does not write it again. */
  publishedAt: Record<string, number>;
}

/**
 * The fleet-wide lease on fetching the upstream sources: one instance (API or not) holds it and
 * fetches every source; the others wait and take it over once it is released or runs out. One
 * lease for the whole file, not one per source, because a price is the median of its sources'
 * quotes and that needs them all in one process. Times are the database's, so clocks of the
 * instances (and the fake clocks of tests) do not matter.
 */
export class SourceLease {
  readonly holder = randomUUID();

  constructor(
    private readonly db: FxExecutor,
    private readonly ttlSeconds: number,
  ) {}

  /** Takes the lease when free or run out, renews it when held; true when this instance holds it now. */
  async acquire(): Promise<boolean> {
    const rows = await this.db
      .insert(sourceLeases)
      .values({ lease: LEASE, holder: this.holder, leaseUntil: sql`clock_timestamp() + make_interval(secs => ${this.ttlSeconds})` })
      .onConflictDoUpdate({
        target: sourceLeases.lease,
        set: { holder: this.holder, leaseUntil: sql`clock_timestamp() + make_interval(secs => ${this.ttlSeconds})` },
        setWhere: sql`${sourceLeases.holder} = ${this.holder} or ${sourceLeases.leaseUntil} < clock_timestamp()`,
      })
      .returning({ holder: sourceLeases.holder });
    return rows.length > 0;
  }

  /** Lets another instance take over at its next tick (on close). */
  async release(): Promise<void> {
    await this.db.update(sourceLeases).set({ leaseUntil: sql`clock_timestamp() - interval '1 second'` }).where(sql`${sourceLeases.lease} = ${LEASE} and ${sourceLeases.holder} = ${this.holder}`);
  }

  /** Written by the holder after each run; ignored once another instance holds the lease. */
  async writeState(state: SharedSourcesState): Promise<void> {
    await this.db.update(sourceLeases).set({ state }).where(sql`${sourceLeases.lease} = ${LEASE} and ${sourceLeases.holder} = ${this.holder}`);
  }

  async readState(): Promise<SharedSourcesState | null> {
    const [row] = await this.db.select({ state: sourceLeases.state }).from(sourceLeases).where(eq(sourceLeases.lease, LEASE));
    return (row?.state as SharedSourcesState | null | undefined) ?? null;
  }
}
