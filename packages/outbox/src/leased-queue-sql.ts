import { selectRows } from '@svc/db';
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgDatabase, PgQueryResultHKT, PgTable } from 'drizzle-orm/pg-core';

// Any Drizzle database or transaction, whatever its schema type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDatabase = PgDatabase<PgQueryResultHKT, any>;
export type Transaction = Parameters<Parameters<AnyDatabase['transaction']>[0]>[0];

/** The part of a queue row (leased-queue-columns.ts) the core needs to settle it. */
export interface LeasedRow {
  id: string;
  attemptCount: number;
  maxAttempts: number;
  traceparent: string | null;
}

/** A queue's own column written with each outcome, e.g. last_status_code (integer). */
export interface RecordedColumn {
  name: string;
  sqlType: 'integer' | 'text';
}

/** One row's outcome, ready to write: what settleRows needs besides the row itself. */
export interface RowSettlement {
  id: string;
  attemptCount: number;
  status: 'pending' | 'succeeded' | 'failed';
  error: string | null;
  attemptedAt: Date;
  /** Set when the row is finished (succeeded or failed for good). */
  completedAt: Date | null;
  /** Set when another attempt follows. */
  nextAttemptAt: Date | null;
  recorded: Record<string, string | number | null>;
}

interface IdRow extends Record<string, unknown> {
  id: string;
}

/**
 * Raw rows come back keyed by SQL column name with the driver's raw values; each column's
 * own mapper turns them into the table's TypeScript shape (camelCase keys, Dates), the same
 * shape a Drizzle select returns.
 */
function rowMapper<Row>(table: PgTable): (raw: Record<string, unknown>) => Row {
  const columns = Object.entries(getTableColumns(table));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = raw[column.name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as Row;
  };
}

export interface QueueStatements<Row> {
  /**
   * `heldPerGroup`: rows this worker already has in flight, by value of the fairness column; a
   * group gets only what is left of its share, so its in-flight rows never exceed perGroup.
   */
  claim(now: Date, limit: number, heldPerGroup?: ReadonlyMap<string, number>): Promise<Row[]>;
  /** Writes outcomes of rows still held by this worker (same attempt, in flight); returns the ids written. */
  settle(tx: AnyDatabase | Transaction, settlements: RowSettlement[]): Promise<Set<string>>;
  /** Pushes the leases of rows this worker still holds to `until`. */
  renew(rows: LeasedRow[], until: Date): Promise<void>;
  /** Deletes up to `limit` finished rows completed before `before`; returns how many. */
  purge(before: Date, limit: number): Promise<number>;
}

export interface QueueStatementOptions {
  db: AnyDatabase;
  table: PgTable;
  leaseMs: number;
  /** Claim only rows whose column holds one of these values (a job worker's kinds); no values, no claims. */
  claimOnly?: { column: PgColumn; values: readonly string[] } | undefined;
  /** A further condition on claimable rows, e.g. that the delivery's endpoint is active. */
  claimableWhere?: SQL | undefined;
  /** At most `perGroup` rows of one value of `column` (e.g. one endpoint) per claim. */
  fairness?: { column: PgColumn; perGroup: number } | undefined;
  recordedColumns?: readonly RecordedColumn[] | undefined;
}

/**
 * The queue's SQL by column name (leased-queue-columns.ts), so one implementation serves every
 * queue table without typing Drizzle's builders over a union of tables. Every statement
 * touches many rows at once: a claim, a settle of every attempt that finished meanwhile, one
 * lease renewal for all rows in flight.
 */
export function queueStatements<Row extends LeasedRow>(options: QueueStatementOptions): QueueStatements<Row> {
  const { db, table, claimOnly, claimableWhere, leaseMs, fairness } = options;
  const recordedColumns = options.recordedColumns ?? [];
  const toRow = rowMapper<Row>(table);

  return {
    async claim(now, limit, heldPerGroup = new Map()) {
      if (claimOnly && claimOnly.values.length === 0) return [];
      const inList = (values: readonly string[]) => sql.join(values.map((value) => sql`${value}`), sql`, `);
      const onlyClause = claimOnly ? sql`and ${claimOnly.column} in (${inList(claimOnly.values)})` : sql``;
      const whereClause = claimableWhere ? sql`and (${claimableWhere})` : sql``;
      // By bare name: the fairness column is referenced from derived tables below, where the table's own name is not in scope.
      const groupColumn = fairness ? sql.identifier(fairness.column.name) : sql``;
      const held = fairness ? [...heldPerGroup].filter(([, count]) => count > 0) : [];
      const saturated = fairness ? held.filter(([, count]) => count >= fairness.perGroup).map(([group]) => group) : [];
      const excludeClause = saturated.length > 0 ? sql`and ${groupColumn} not in (${inList(saturated)})` : sql``;
      const filters = sql`${onlyClause} ${whereClause} ${excludeClause}`;
      const groupSelect = fairness ? sql`, ${groupColumn}` : sql``;
      // With fairness, more rows are looked at than claimed, so one group's backlog (a slow endpoint's) cannot fill a claim.
      const scan = fairness ? limit * 4 : limit;
      // Two scans, each an ordered walk of the due index that stops after `scan` rows (an OR of
      // both would read and sort every due row), each skipping rows other workers hold.
      const candidates = sql`
        with due_pending as (
          select id, next_attempt_at ${groupSelect} from ${table}
          where status = 'pending' and next_attempt_at <= ${now.toISOString()} ${filters}
          order by next_attempt_at limit ${scan} for update skip locked
        ), lease_expired as (
          select id, next_attempt_at ${groupSelect} from ${table}
          where status = 'in_flight' and lease_expires_at <= ${now.toISOString()} ${filters}
          order by next_attempt_at limit ${scan} for update skip locked
        ), due as (select * from due_pending union all select * from lease_expired)`;
      // A group's share in this claim is what its rows in flight here leave of perGroup.
      const heldRows = held.filter(([, count]) => count < (fairness?.perGroup ?? 0)).map(([group, count]) => sql`(${group}::text, ${count}::int)`);
      const heldJoin =
        heldRows.length > 0 ? sql`left join (values ${sql.join(heldRows, sql`, `)}) as held(group_value, in_flight) on held.group_value = ranked.group_value` : sql``;
      const heldCount = heldRows.length > 0 ? sql`coalesce(held.in_flight, 0)` : sql`0`;
      const picked = fairness
        ? sql`select id from (
                select id, next_attempt_at, ${groupColumn}::text as group_value,
                  row_number() over (partition by ${groupColumn} order by next_attempt_at) as group_rank
                from due
              ) as ranked ${heldJoin}
              where group_rank <= ${fairness.perGroup} - ${heldCount}
              order by next_attempt_at
              limit ${limit}`
        : sql`select id from due order by next_attempt_at limit ${limit}`;
      const leaseUntil = new Date(now.getTime() + leaseMs);
      const claimed = await selectRows(
        db,
        sql`${candidates}
            update ${table} set status = 'in_flight', lease_expires_at = ${leaseUntil.toISOString()}, attempt_count = attempt_count + 1
            where id in (${picked})
            returning *`,
      );
      return claimed.map(toRow);
    },

    async settle(tx, settlements) {
      if (settlements.length === 0) return new Set();
      const values = settlements.map(
        (s) =>
          sql`(${s.id}::uuid, ${s.attemptCount}::int, ${s.status}::text, ${s.error}::text, ${s.attemptedAt.toISOString()}::timestamptz,
               ${s.completedAt?.toISOString() ?? null}::timestamptz, ${s.nextAttemptAt?.toISOString() ?? null}::timestamptz
               ${sql.join(
                 recordedColumns.map((column) => sql`, ${s.recorded[column.name] ?? null}::${sql.raw(column.sqlType)}`),
                 sql``,
               )})`,
      );
      const recordedNames = recordedColumns.map((column) => sql.raw(column.name));
      const updated = await selectRows<IdRow>(
        tx,
        sql`update ${table} as q set
              status = v.status, last_error = v.last_error, last_attempt_at = v.attempted_at, lease_expires_at = null,
              completed_at = v.completed_at, next_attempt_at = coalesce(v.next_attempt_at, q.next_attempt_at)
              ${sql.join(recordedNames.map((name) => sql`, ${name} = v.${name}`), sql``)}
            from (values ${sql.join(values, sql`, `)})
              as v(id, attempt_count, status, last_error, attempted_at, completed_at, next_attempt_at${sql.join(recordedNames.map((name) => sql`, ${name}`), sql``)})
            where q.id = v.id and q.status = 'in_flight' and q.attempt_count = v.attempt_count
            returning q.id`,
      );
      return new Set(updated.map((row) => row.id));
    },

    async renew(rows, until) {
      if (rows.length === 0) return;
      const values = rows.map((row) => sql`(${row.id}::uuid, ${row.attemptCount}::int)`);
      await db.execute(
        sql`update ${table} as q set lease_expires_at = ${until.toISOString()}
            from (values ${sql.join(values, sql`, `)}) as v(id, attempt_count)
            where q.id = v.id and q.status = 'in_flight' and q.attempt_count = v.attempt_count`,
      );
    },

    async purge(before, limit) {
      const deleted = await selectRows<IdRow>(
        db,
        sql`delete from ${table} where id in (
              select id from ${table}
              where status in ('succeeded', 'failed') and completed_at < ${before.toISOString()}
              limit ${limit}
            )
            returning id`,
      );
      return deleted.length;
    },
  };
}
