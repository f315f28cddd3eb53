import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/db/schema.ts', './src/db/schema-second-factors.ts', './src/db/schema-password-resets.ts'],
  out: './drizzle',
  schemaFilter: ['identity'],
  // Bookkeeping in the service's own schema: left at the default, drizzle puts it in a shared one.
  migrations: { schema: 'identity', table: '__drizzle_migrations' },
});
