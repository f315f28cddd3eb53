import { latestTimestampWriter } from '@svc/db';
import { LastUsedBatcher } from '@svc/service-kit';
import type { FxExecutor } from '../../db/executor.js';
import { apiClients } from '../../db/schema.js';

/** API client lastUsedUtc, batched (see LastUsedBatcher). */
export function createClientLastUsed(db: FxExecutor, options: { flushIntervalMs: number; onError: (error: unknown) => void }): LastUsedBatcher {
  return new LastUsedBatcher({ ...options, write: latestTimestampWriter(db, { table: apiClients, id: apiClients.id, timestamp: apiClients.lastUsedUtc }) });
}
