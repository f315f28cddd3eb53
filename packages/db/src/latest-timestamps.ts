import { sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { AppDatabase } from './database.js';

/**
 * A batch writer of "last used" times into one timestamptz column, keyed by id. greatest()
 * keeps a stored value from moving backwards, since every instance flushes its own batch.
 */
export function latestTimestampWriter<TSchema extends Record<string, unknown>>(
  db: AppDatabase<TSchema>,
  target: { table: PgTable; id: PgColumn; timestamp: PgColumn },
): (entries: ReadonlyMap<string, Date>) => Promise<void> {
  const { table, id, timestamp } = target;
  return async (entries) => {
    for (const [key, at] of entries) {
      await db.execute(sql`update ${table} set ${sql.identifier(timestamp.name)} = greatest(${timestamp}, ${at.toISOString()}::timestamptz) where ${id} = ${key}`);
    }
  };
}
