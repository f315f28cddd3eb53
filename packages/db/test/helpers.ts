import { fileURLToPath } from 'node:url';

export const migrationsFolder = fileURLToPath(new URL('./fixtures/migrations', import.meta.url));
export const childScript = fileURLToPath(new URL('./fixtures/open-in-child.ts', import.meta.url));
export const migrationOptions = { migrationsFolder, schemaName: 'dbtest' } as const;
