import { createTestDatabase } from '@svc/db/testing';
import { fileURLToPath } from 'node:url';
import * as schema from './fixtures/schema.js';

export const migrationsFolder = fileURLToPath(new URL('./fixtures/migrations', import.meta.url));

export function createQueueTestDatabase() {
  return createTestDatabase({ migrationsFolder, schemaName: 'outbox_test', schema });
}
