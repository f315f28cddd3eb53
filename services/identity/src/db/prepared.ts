import type { IdentityExecutor } from './schema.js';

/**
 * A hot query built once per database: Drizzle then skips rebuilding its SQL text on every call
 * (a sixth of the CPU of an authenticated read in a profile). Keyed by the database object, so
 * tests with their own databases and the CLI each get their own; transactions build afresh.
 */
export function preparedPerDatabase<Query>(build: (db: IdentityExecutor) => Query): (db: IdentityExecutor) => Query {
  const byDatabase = new WeakMap<IdentityExecutor, Query>();
  return (db) => {
    let query = byDatabase.get(db);
    if (query === undefined) {
      query = build(db);
      byDatabase.set(db, query);
    }
    return query;
  };
}
