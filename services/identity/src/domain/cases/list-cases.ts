import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { verificationCases, type IdentityExecutor } from '../../db/schema.js';
import type { CaseCountCache } from './case-count-cache.js';
import { decodeCaseListCursor, encodeCaseListCursor, type CaseListFilters } from './case-list-cursor.js';
import type { CaseStatus, DocumentType } from './case-states.js';
import { iso } from './read-cases.js';
import { pageOf } from '../common/paging.js';

export interface ListCasesQuery {
  status?: CaseStatus | undefined;
  /** A case id (exact), or the start of an external reference (case-insensitive). */
  search?: string | undefined;
  /** 1-based; absent with a cursor (the cursor knows its page). */
  page?: number | undefined;
  pageSize: number;
  /** nextCursor of the previous page: a keyset page, as fast at page 10,000 as at page 2. */
  cursor?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** LIKE's wildcards in the text are literal: a search for "50%" finds "50%…", not "50…". */
const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

function searchCondition(search: string): SQL {
  const byReference = sql`${verificationCases.externalReference} ilike ${likePrefix(search)}`;
  if (!UUID.test(search)) return byReference;
  return sql`(${verificationCases.id} = ${search.toLowerCase()}::uuid or ${byReference})`;
}

// The indexes on (tenant_id, [status,] created_at, id) are DESC NULLS LAST; a bare DESC means NULLS FIRST,
// which no index can serve: PostgreSQL then reads and sorts every case of the tenant for each page.
const NEWEST_FIRST = [sql`${verificationCases.createdAt} desc nulls last`, sql`${verificationCases.id} desc nulls last`];

// createdAt exactly as stored (microseconds), so a cursor resumes after the very row it names.
const createdAtMicros = sql<string>`((extract(epoch from ${verificationCases.createdAt}) * 1000000)::bigint)::text`;

/**
 * Newest first, ties broken by id so pages never overlap or skip. `page` skips rows (its cost
 * grows with the page number); `cursor` seeks in the (tenant, [status,] createdAt, id) index.
 * One row more than the page is read to know whether a next page exists.
 */
export async function listCases(db: IdentityExecutor, tenantId: string, query: ListCasesQuery, counts: CaseCountCache) {
  const filters: CaseListFilters = { tenantId, status: query.status, search: query.search };
  const position = query.cursor === undefined ? null : decodeCaseListCursor(query.cursor, filters);
  const page = position?.page ?? query.page ?? 1;
  const conditions: SQL[] = [eq(verificationCases.tenantId, tenantId)];
  if (query.status) conditions.push(eq(verificationCases.status, query.status));
  if (query.search) conditions.push(searchCondition(query.search));
  const filtered = and(...conditions)!;
  const after = position
    ? sql`(${verificationCases.createdAt}, ${verificationCases.id}) < ('epoch'::timestamptz + ${position.createdAtMicros.toString()}::bigint * interval '1 microsecond', ${position.id}::uuid)`
    : undefined;
  const [rows, total] = await Promise.all([
    db
      .select({
        id: verificationCases.id,
        externalReference: verificationCases.externalReference,
        status: verificationCases.status,
        documentType: verificationCases.documentType,
        compositeRiskScore: verificationCases.compositeRiskScore,
        createdAt: verificationCases.createdAt,
        completedAt: verificationCases.completedAt,
        createdAtMicros,
      })
      .from(verificationCases)
      .where(after ? and(filtered, after) : filtered)
      .orderBy(...NEWEST_FIRST)
      .limit(query.pageSize + 1)
      .offset(position ? 0 : (page - 1) * query.pageSize),
    counts.count(
      JSON.stringify([tenantId, query.status ?? null, query.search ?? null]),
      async (limit) => {
        const [row] = await db.select({ value: count() }).from(db.select({ one: sql`1` }).from(verificationCases).where(filtered).limit(limit).as('capped'));
        return row?.value ?? 0;
      },
      async () => (await db.select({ value: count() }).from(verificationCases).where(filtered))[0]?.value ?? 0,
    ),
  ]);
  const shown = rows.slice(0, query.pageSize);
  const last = shown.at(-1);
  const nextCursor = rows.length > query.pageSize && last ? encodeCaseListCursor({ createdAtMicros: BigInt(last.createdAtMicros), id: last.id, page: page + 1 }, filters) : null;
  const items = shown.map(({ createdAtMicros: _micros, ...item }) => ({
    ...item,
    status: item.status as CaseStatus,
    documentType: item.documentType as DocumentType,
    createdAt: item.createdAt.toISOString(),
    completedAt: iso(item.completedAt),
  }));
  return { ...pageOf(items, { page, pageSize: query.pageSize }, total.value), totalCountAsOf: total.countedAt.toISOString(), nextCursor };
}
