import { selectRows } from '@svc/db';
import type { CounterIncrement, CounterStore } from '@svc/rate-limit';
import { sql } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';

/**
 * Keyed limits without Redis: counters in fx.usage_counters, incremented atomically by one
 * upsert (a row past its window starts again at 1), so a monthly quota survives restarts and
 * is shared by every instance on the same database. Expired rows are swept now and then.
 */
export class DatabaseCounterStore implements CounterStore {
  readonly kind = 'database' as const;
  private increments = 0;

  constructor(
    private readonly db: FxExecutor,
    private readonly clock: () => number,
  ) {}

  async increment(counters: CounterIncrement[]): Promise<number[]> {
    if (counters.length === 0) return [];
    const now = this.clock();
    const nowText = new Date(now).toISOString();
    const values = sql.join(
      counters.map(({ key, ttlMs }) => sql`(${key}, 1, ${new Date(now + ttlMs).toISOString()}::timestamptz)`),
      sql`, `,
    );
    const rows = await selectRows<{ key: string; count: number }>(
      this.db,
      sql`insert into fx.usage_counters as c (key, count, expires_at) values ${values}
          on conflict (key) do update set
            count = case when c.expires_at <= ${nowText}::timestamptz then 1 else c.count + 1 end,
            expires_at = case when c.expires_at <= ${nowText}::timestamptz then excluded.expires_at else c.expires_at end
          returning key, count`,
    );
    if (++this.increments % 1000 === 0) await this.db.execute(sql`delete from fx.usage_counters where expires_at <= ${nowText}::timestamptz`);
    const byKey = new Map(rows.map((row) => [row.key, Number(row.count)]));
    return counters.map(({ key }) => byKey.get(key) ?? 1);
  }

  async peek(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const nowText = new Date(this.clock()).toISOString();
    const rows = await selectRows<{ key: string; count: number }>(
      this.db,
      sql`select key, count from fx.usage_counters where key in (${sql.join(keys.map((key) => sql`${key}`), sql`, `)}) and expires_at > ${nowText}::timestamptz`,
    );
    const byKey = new Map(rows.map((row) => [row.key, Number(row.count)]));
    return keys.map((key) => byKey.get(key) ?? 0);
  }
}
