import { Readable } from 'node:stream';
import { and, count, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import { verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { encodeCsvRecord } from '@svc/csv';
import type { ReportWindow } from './report-window.js';

/** The spec's columns, in its order. */
export const EXPORT_COLUMNS = ['CaseId', 'Status', 'DocumentType', 'ExternalReference', 'CreatedAt', 'CompletedAt', 'CompositeRiskScore', 'DecisionReason'] as const;

/** The spec's cap on one export. */
export const EXPORT_ROW_LIMIT = 5_000;
/** Rows read per query: memory stays at one batch whatever the export's size. */
export const EXPORT_BATCH_SIZE = 500;

export interface ExportRow {
  id: string;
  status: string;
  documentType: string;
  externalReference: string | null;
  createdAt: Date;
  completedAt: Date | null;
  compositeRiskScore: number | null;
  decisionReason: string | null;
}

export function exportRecord(row: ExportRow): string {
  return encodeCsvRecord([
    row.id,
    row.status,
    row.documentType,
    row.externalReference,
    row.createdAt.toISOString(),
    row.completedAt?.toISOString() ?? null,
    row.compositeRiskScore,
    row.decisionReason,
  ]);
}

function windowCondition(tenantId: string, window: ReportWindow): SQL | undefined {
  return and(eq(verificationCases.tenantId, tenantId), gte(verificationCases.createdAt, window.from), lte(verificationCases.createdAt, window.to));
}

export async function countExportCases(db: IdentityExecutor, tenantId: string, window: ReportWindow): Promise<number> {
  const [row] = await db.select({ value: count() }).from(verificationCases).where(windowCondition(tenantId, window));
  return row?.value ?? 0;
}

/**
 * Where the previous batch ended. created_at is kept as PostgreSQL's own text, not a JS Date:
 * a Date holds milliseconds and the column microseconds, so a Date cursor would skip or repeat
 * rows that share a millisecond.
 */
interface KeysetCursor {
  createdAt: string;
  id: string;
}

/**
 * The newest `limit` cases of the window (createdAt desc, id desc), read `batchSize` at a time
 * by keyset pagination on the tenant's (created_at desc, id desc) index: each batch starts where
 * the last one ended, so no batch costs more than the first and only one is in memory. Each batch
 * is its own statement: a case created meanwhile can appear in a later batch (or not), but no row
 * present throughout is skipped or repeated.
 */
export async function* readExportRows(db: IdentityExecutor, tenantId: string, window: ReportWindow, options: { limit?: number; batchSize?: number } = {}): AsyncGenerator<ExportRow[]> {
  const limit = options.limit ?? EXPORT_ROW_LIMIT;
  const batchSize = options.batchSize ?? EXPORT_BATCH_SIZE;
  let cursor: KeysetCursor | null = null;
  let remaining = limit;
  while (remaining > 0) {
    const wanted = Math.min(batchSize, remaining);
    const after: SQL | undefined = cursor
      ? sql`(${verificationCases.createdAt}, ${verificationCases.id}) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`
      : undefined;
    const rows: (ExportRow & { cursorCreatedAt: string })[] = await db
      .select({
        id: verificationCases.id,
        status: verificationCases.status,
        documentType: verificationCases.documentType,
        externalReference: verificationCases.externalReference,
        createdAt: verificationCases.createdAt,
        completedAt: verificationCases.completedAt,
        compositeRiskScore: verificationCases.compositeRiskScore,
        decisionReason: verificationCases.decisionReason,
        cursorCreatedAt: sql<string>`${verificationCases.createdAt}::text`,
      })
      .from(verificationCases)
      .where(and(windowCondition(tenantId, window), after))
      .orderBy(desc(verificationCases.createdAt), desc(verificationCases.id))
      .limit(wanted);
    if (rows.length > 0) yield rows;
    // A short batch is the last one: no query is spent learning that nothing follows.
    if (rows.length < wanted) return;
    remaining -= rows.length;
    const last = rows[rows.length - 1]!;
    cursor = { createdAt: last.cursorCreatedAt, id: last.id };
  }
}

/** The header, then one chunk of records per batch (a chunk per row would cost a write each). */
export async function* exportCsvChunks(batches: AsyncIterable<readonly ExportRow[]>): AsyncGenerator<string> {
  yield encodeCsvRecord(EXPORT_COLUMNS);
  for await (const batch of batches) yield batch.map(exportRecord).join('');
}

/** `verifications_20250314.csv`: the export's UTC date. */
export function exportFileName(now: Date): string {
  return `verifications_${now.toISOString().slice(0, 10).replaceAll('-', '')}.csv`;
}

export interface CasesExport {
  fileName: string;
  /** Every case of the window, also those past the cap. */
  totalCount: number;
  truncated: boolean;
  /** UTF-8 CSV, produced as the client reads it (backpressure pauses the queries). */
  body: Readable;
}

/**
 * The export of a tenant's window. Counting comes first so the headers can say how many cases
 * matched; the rows are read only as the body is consumed, and a client that goes away stops
 * the reading (the stream's destroy ends the generator).
 */
export async function openCasesExport(db: IdentityExecutor, tenantId: string, window: ReportWindow, now: Date): Promise<CasesExport> {
  const totalCount = await countExportCases(db, tenantId, window);
  return {
    fileName: exportFileName(now),
    totalCount,
    truncated: totalCount > EXPORT_ROW_LIMIT,
    body: Readable.from(exportCsvChunks(readExportRows(db, tenantId, window)), { objectMode: false }),
  };
}
