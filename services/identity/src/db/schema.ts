import { pgSchema } from 'drizzle-orm/pg-core';

/** identity owns this Postgres schema; every table of the service is declared on it. */
export const identitySchema = pgSchema('identity');

export const databaseSchema = {};
export type IdentityDatabaseSchema = typeof databaseSchema;
