import type { AppDatabase } from '@svc/db';
import type { FxDatabaseSchema } from './schema.js';

/** The database or a transaction on it (drizzle transactions are databases too). */
export type FxExecutor = AppDatabase<FxDatabaseSchema>;
