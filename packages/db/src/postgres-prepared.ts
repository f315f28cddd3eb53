import type { Sql } from 'postgres';
import { traceLazyQuery } from './query-tracing.js';

type TransactionCallback = (sql: Sql) => unknown;

/**
 * The postgres.js client Drizzle gets: every query with parameters runs as a server-side
 * prepared statement.
 *
 * Drizzle's postgres.js driver asks for one only for queries built with `.prepare(name)`; it
 * sends every other query through `unsafe(text, params, { prepare: false })`. postgres.js must
 * then learn the parameter types before it can bind them, so each such query costs two round
 * trips: Parse, Describe and Sync, a wait for the ParameterDescription, then Bind, Execute and
 * Sync. With `prepare: true` the first execution on a connection prepares and describes the text,
 * and every later one is a single Bind, Execute and Sync. postgres.js keeps the statements per
 * connection (by text and parameter types), re-prepares one the server has dropped or whose plan
 * a migration invalidated, and forgets them with the connection (its `max_lifetime`, 30 to 60
 * minutes), which bounds what texts with varying `IN` lists leave behind.
 *
 * Queries without parameters keep postgres.js's simple protocol; `begin` and `savepoint` hand
 * their callbacks a client with the same behaviour, so transactions prepare too.
 */
export function preparingClient(client: Sql): Sql {
  // Made once per client, not on every property read: Drizzle reads `unsafe` for every query.
  const unsafe = (text: string, params?: unknown[], options?: Record<string, unknown>) => traceLazyQuery(text, client.unsafe(text, params as never, { ...options, prepare: true }));
  const scoped = (open: (...args: unknown[]) => unknown) => (...args: unknown[]) => {
    const callback = args.pop() as TransactionCallback;
    return open.call(client, ...args, (inner: Sql) => callback(preparingClient(inner)));
  };
  const method = (name: string) => Reflect.get(client, name) as ((...args: unknown[]) => unknown) | undefined;
  // The root client has begin(), a transaction's client has savepoint() instead.
  const beginOf = method('begin');
  const begin = beginOf ? scoped(beginOf) : undefined;
  const savepointOf = method('savepoint');
  const savepoint = savepointOf ? scoped(savepointOf) : undefined;
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') return unsafe;
      if (property === 'begin' && begin) return begin;
      if (property === 'savepoint' && savepoint) return savepoint;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}
