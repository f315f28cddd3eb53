import { and, asc, gt, lt, max, min, sql } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { streamEvents } from '../../db/schema.js';

/** NOTIFY channel: the payload is the new event's id; every instance's hub reads the table from there. */
export const STREAM_EVENTS_CHANNEL = 'fx_stream_events';

export const STREAM_KINDS = ['rates', 'crypto', 'gold'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

export interface StreamEvent {
  id: number;
  kind: StreamKind;
  payload: unknown;
  createdAt: Date;
}

/**
 * Appends a change in the caller's transaction and NOTIFYs it on commit. Writers take turns
 * (changes are rare: admin writes and pollers), so ids become visible in increasing order and a
 * reader that has seen id N never has to look below N again.
 */
export async function appendStreamEvent(tx: FxExecutor, kind: StreamKind, payload: unknown, now: Date): Promise<number> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('fx:stream-events', 0))`);
  const [row] = await tx.insert(streamEvents).values({ kind, payload, createdAt: now }).returning({ id: streamEvents.id });
  if (!row) throw new Error('stream event insert returned no row');
  await tx.execute(sql`select pg_notify(${STREAM_EVENTS_CHANNEL}, ${String(row.id)})`);
  return row.id;
}

export async function streamEventsAfter(db: FxExecutor, afterId: number, limit: number): Promise<StreamEvent[]> {
  const rows = await db.select().from(streamEvents).where(gt(streamEvents.id, afterId)).orderBy(asc(streamEvents.id)).limit(limit);
  return rows.map((row) => ({ ...row, kind: row.kind as StreamKind }));
}

/** Oldest and newest retained ids (0 and 0 when none is kept). */
export async function retainedStreamEventIds(db: FxExecutor): Promise<{ oldest: number; newest: number }> {
  const [row] = await db.select({ oldest: min(streamEvents.id), newest: max(streamEvents.id) }).from(streamEvents);
  return { oldest: Number(row?.oldest ?? 0), newest: Number(row?.newest ?? 0) };
}

/** The newest event is always kept: it is the id a snapshot carries, however old it is. */
export async function pruneStreamEvents(db: FxExecutor, olderThan: Date): Promise<void> {
  await db.delete(streamEvents).where(and(lt(streamEvents.createdAt, olderThan), lt(streamEvents.id, sql`(select max(${streamEvents.id}) from ${streamEvents})`)));
}
