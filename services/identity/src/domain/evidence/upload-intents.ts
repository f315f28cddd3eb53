import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { evidenceUploads, type IdentityExecutor } from '../../db/schema.js';
import type { EvidenceVault } from './evidence-vault.js';

/**
 * An evidence object is whole or absent: every object is announced by an intent row committed
 * before any byte of it reaches the store, and the transaction that records the evidence row
 * takes (deletes) that intent. Whoever removes the intent owns the object:
 *
 * - the recording transaction, only while the intent is younger than `graceMs` (by the database's
 *   clock, judged while it holds the intent's row lock), so a commit that happens at all happens
 *   within the grace;
 * - the sweep, only once the intent is older than `graceMs`, under its row lock: it deletes the
 *   object first and the intent after, so a sweep killed half-way leaves an intent that no upload
 *   can take any more and the next sweep finishes.
 *
 * So no evidence row can ever point at an object the sweep removed, and an object whose recording
 * failed in any way (a process killed, a session terminated during COMMIT) is either recorded or
 * removed within one sweep interval after the grace. Time is always the database's
 * `clock_timestamp()`, never a process clock, so skewed hosts agree.
 */

/** Announces the object about to be stored under `storageKey`. Committed on its own, before the object is written. */
export async function announceUpload(db: IdentityExecutor, tenantId: string, storageKey: string): Promise<void> {
  await db.insert(evidenceUploads).values({ storageKey, tenantId, startedAt: sql`clock_timestamp()` });
}

/**
 * Takes the intent inside the transaction that records the evidence row. False when it is older
 * than the grace or gone (the sweep took it, or will): the row must not be recorded then.
 */
export async function takeUpload(tx: IdentityExecutor, storageKey: string, graceMs: number): Promise<boolean> {
  // The lock first, the age after, in two statements. PostgreSQL judges a statement's WHERE (and
  // computes its columns) before it waits on a row lock, and does not judge again when the holder
  // rolls back: one DELETE could take an intent that was young when it began waiting on a sweep
  // which then deleted the object and died before its commit.
  const locked = await tx.select({ storageKey: evidenceUploads.storageKey }).from(evidenceUploads).where(eq(evidenceUploads.storageKey, storageKey)).for('update');
  if (locked.length === 0) return false;
  const taken = await tx
    .delete(evidenceUploads)
    .where(and(eq(evidenceUploads.storageKey, storageKey), gt(evidenceUploads.startedAt, graceStart(graceMs))))
    .returning({ storageKey: evidenceUploads.storageKey });
  return taken.length === 1;
}

/** Drops the intent of an object that was never recorded and has just been deleted (best effort: the sweep does it otherwise). */
export async function forgetUpload(db: IdentityExecutor, storageKey: string): Promise<void> {
  await db.delete(evidenceUploads).where(eq(evidenceUploads.storageKey, storageKey));
}

/**
 * Removes up to `batch` objects whose upload was announced more than `graceMs` ago and never
 * recorded, and their intents. Several sweepers may run: SKIP LOCKED gives each intent to one.
 */
export async function sweepAbandonedUploads(db: IdentityExecutor, vault: Pick<EvidenceVault, 'delete'>, options: { graceMs: number; batch: number }): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ storageKey: evidenceUploads.storageKey })
      .from(evidenceUploads)
      .where(lte(evidenceUploads.startedAt, graceStart(options.graceMs)))
      .orderBy(asc(evidenceUploads.startedAt))
      .limit(options.batch)
      .for('update', { skipLocked: true });
    for (const { storageKey } of due) await vault.delete(storageKey);
    if (due.length > 0) await tx.delete(evidenceUploads).where(inArray(evidenceUploads.storageKey, due.map((row) => row.storageKey)));
    return due.length;
  });
}

/** The oldest start an intent may have and still be taken, by the database's clock at the moment of the statement. */
const graceStart = (graceMs: number) => sql`clock_timestamp() - make_interval(secs => ${graceMs / 1000})`;
