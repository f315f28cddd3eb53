import { fileURLToPath } from 'node:url';

/** Committed drizzle-kit migrations, at the package root: found the same way from src/ (tests, tsx) and dist/. */
export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));
export const schemaName = 'fx';
