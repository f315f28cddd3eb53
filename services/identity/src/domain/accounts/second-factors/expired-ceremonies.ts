import { inArray, lt } from 'drizzle-orm';
import type { IdentityExecutor } from '../../../db/schema.js';
import { pendingSignIns, webauthnChallenges } from '../../../db/schema-second-factors.js';

/**
 * Deletes WebAuthn challenges and pending sign-ins past their five minutes, spent or not: neither
 * can do anything any more, and without this sweep a burst of abandoned sign-ins would stay in
 * the tables until the next ceremony of the same kind happened to clean up. In batches, so one
 * sweep after a long pause holds no long lock.
 */
export async function purgeExpiredCeremonies(db: IdentityExecutor, now: Date, batchSize = 1000): Promise<{ challenges: number; pendingSignIns: number }> {
  const purged = { challenges: 0, pendingSignIns: 0 };
  for (;;) {
    const due = db.select({ id: webauthnChallenges.id }).from(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, now)).limit(batchSize);
    const deleted = await db.delete(webauthnChallenges).where(inArray(webauthnChallenges.id, due)).returning({ id: webauthnChallenges.id });
    purged.challenges += deleted.length;
    if (deleted.length < batchSize) break;
  }
  for (;;) {
    // A pending sign-in's own challenges go with it (ON DELETE CASCADE).
    const due = db.select({ id: pendingSignIns.id }).from(pendingSignIns).where(lt(pendingSignIns.expiresAt, now)).limit(batchSize);
    const deleted = await db.delete(pendingSignIns).where(inArray(pendingSignIns.id, due)).returning({ id: pendingSignIns.id });
    purged.pendingSignIns += deleted.length;
    if (deleted.length < batchSize) break;
  }
  return purged;
}
