import { pgSchema } from 'drizzle-orm/pg-core';

/** fx owns this Postgres schema; every table of the service is declared on it. */
export const fxSchema = pgSchema('fx');

export const databaseSchema = {};
export type FxDatabaseSchema = typeof databaseSchema;
