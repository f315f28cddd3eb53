import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
  schemaFilter: ['fx'],
  // Bookkeeping in the service's own schema: left at the default, drizzle puts it in a shared one.
  migrations: { schema: 'fx', table: '__drizzle_migrations' },
});
