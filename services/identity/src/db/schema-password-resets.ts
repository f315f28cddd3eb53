import { index, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { identitySchema } from './schema.js';

const timestampTz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Every "forgot password" request, known address or not, so the limits (per address, per IP)
 * count requests alike and answer alike. A row for an existing account also holds the SHA-256
 * of its single-use link token; `account` is `user:<id>` or `staff:<id>` as in the audit log.
 */
export const passwordResets = identitySchema.table(
  'password_resets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** 'portal' or 'console': which sign-in the request came from. */
    realm: text('realm').notNull(),
    /** As typed (lower-cased): the per-address limit counts it whether or not it has an account. */
    email: text('email').notNull(),
    ipAddress: text('ip_address'),
    account: text('account'),
    tokenHash: text('token_hash'),
    createdAt: timestampTz('created_at').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    usedAt: timestampTz('used_at'),
  },
  (table) => [
    uniqueIndex('password_resets_token_key').on(table.tokenHash),
    index('password_resets_email_idx').on(table.email, table.createdAt),
    index('password_resets_ip_idx').on(table.ipAddress, table.createdAt),
  ],
);
