export { findRepositoryRoot, resolveDataDir } from './data-dir.js';
export { latestTimestampWriter } from './latest-timestamps.js';
export { acquireDataDirLock, DataDirLockedError, type DataDirLock } from './data-dir-lock.js';
export {
  migratePostgresDatabase,
  openDatabase,
  selectRows,
  type AppDatabase,
  type Database,
  type DatabaseDriver,
  type MigrationOptions,
  type OpenDatabaseOptions,
  type PoolStats,
  type SqlExecutor,
  useBaselineWasmCompilerForPglite,
} from './database.js';
export { traceQueriesWith, type QuerySpan, type QueryTracer } from './query-tracing.js';
