import { latestTimestampWriter } from '@svc/db';
import { LastUsedBatcher } from '@svc/service-kit';
import { oauthClients, type IdentityExecutor } from '../../db/schema.js';

/** OAuth client lastUsedAt, batched (see LastUsedBatcher). */
export function createClientLastUsed(db: IdentityExecutor, options: { flushIntervalMs: number; onError: (error: unknown) => void }): LastUsedBatcher {
  return new LastUsedBatcher({ ...options, write: latestTimestampWriter(db, { table: oauthClients, id: oauthClients.id, timestamp: oauthClients.lastUsedAt }) });
}
