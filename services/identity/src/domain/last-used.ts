import { LastUsedBatcher } from '@svc/service-kit';
import { eq, sql } from 'drizzle-orm';
import { oauthClients, type IdentityExecutor } from '../db/schema.js';

/** OAuth client lastUsedAt, batched (see LastUsedBatcher); greatest() keeps it from moving backwards. */
export function createClientLastUsed(db: IdentityExecutor, options: { flushIntervalMs: number; onError: (error: unknown) => void }): LastUsedBatcher {
  return new LastUsedBatcher({
    ...options,
    async write(entries) {
      for (const [id, at] of entries) {
        await db
          .update(oauthClients)
          .set({ lastUsedAt: sql`greatest(${oauthClients.lastUsedAt}, ${at.toISOString()}::timestamptz)` })
          .where(eq(oauthClients.id, id));
      }
    },
  });
}
