import type { AppDatabase } from '@svc/db';
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** identity owns this Postgres schema; every table of the service is declared on it. */
export const identitySchema = pgSchema('identity');

const timestampTz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const tenants = identitySchema.table('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** 'active' | 'disabled': a disabled tenant's users, clients and tokens all get 403 ACCOUNT_DISABLED. */
  status: text('status').notNull().default('active'),
  createdAt: timestampTz('created_at').notNull().defaultNow(),
  updatedAt: timestampTz('updated_at').notNull().defaultNow(),
});

export const portalUsers = identitySchema.table(
  'portal_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    /** Stored lower-cased: one email is one login across all tenants. */
    email: text('email').notNull(),
    role: text('role').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: timestampTz('created_at').notNull().defaultNow(),
  },
  (table) => [uniqueIndex('portal_users_email_key').on(table.email), index('portal_users_tenant_idx').on(table.tenantId)],
);

/**
 * Failed logins per email address, kept apart from users so an address that has no account
 * locks exactly like one that has (no account enumeration through the lockout).
 */
export const loginThrottle = identitySchema.table('login_throttle', {
  email: text('email').primaryKey(),
  windowStartedAt: timestampTz('window_started_at').notNull(),
  failures: integer('failures').notNull(),
  lockedUntil: timestampTz('locked_until'),
});

export const portalSessions = identitySchema.table(
  'portal_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** SHA-256 (hex) of the svc_ps_ token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id').notNull().references(() => portalUsers.id),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    createdAt: timestampTz('created_at').notNull().defaultNow(),
    expiresAt: timestampTz('expires_at').notNull(),
    endedAt: timestampTz('ended_at'),
  },
  (table) => [uniqueIndex('portal_sessions_token_hash_key').on(table.tokenHash)],
);

export const oauthClients = identitySchema.table(
  'oauth_clients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    clientId: text('client_id').notNull(),
    clientName: text('client_name').notNull(),
    /** Lowercase hex SHA-256 of the certificate DER. */
    certificateThumbprint: text('certificate_thumbprint').notNull(),
    certificateSubjectDn: text('certificate_subject_dn').notNull(),
    certificateNotBefore: timestampTz('certificate_not_before').notNull(),
    certificateNotAfter: timestampTz('certificate_not_after').notNull(),
    allowedScopes: text('allowed_scopes').notNull(),
    createdAt: timestampTz('created_at').notNull().defaultNow(),
    lastUsedAt: timestampTz('last_used_at'),
    revokedAt: timestampTz('revoked_at'),
  },
  (table) => [
    uniqueIndex('oauth_clients_client_id_key').on(table.clientId),
    // A certificate identifies one live client across all tenants; a revoked client's may be registered again.
    uniqueIndex('oauth_clients_active_thumbprint_key').on(table.certificateThumbprint).where(sql`${table.revokedAt} is null`),
    index('oauth_clients_tenant_idx').on(table.tenantId, table.createdAt),
  ],
);

export const accessTokens = identitySchema.table(
  'access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** SHA-256 (hex) of the svc_at_ token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    clientEntityId: uuid('client_entity_id').notNull().references(() => oauthClients.id),
    certificateThumbprint: text('certificate_thumbprint').notNull(),
    scope: text('scope').notNull(),
    issuedAt: timestampTz('issued_at').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    revokedAt: timestampTz('revoked_at'),
  },
  (table) => [uniqueIndex('access_tokens_token_hash_key').on(table.tokenHash), index('access_tokens_client_idx').on(table.clientEntityId)],
);

export const auditLog = identitySchema.table(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: uuid('tenant_id'),
    /** Who acted: `user:<id>`, `client:<clientId>`, `cli`, or `anonymous` for a failed login. */
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    target: text('target'),
    correlationId: text('correlation_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    at: timestampTz('at').notNull().defaultNow(),
  },
  (table) => [index('audit_log_tenant_at_idx').on(table.tenantId, table.at)],
);

export const databaseSchema = { tenants, portalUsers, loginThrottle, portalSessions, oauthClients, accessTokens, auditLog };
export type IdentityDatabaseSchema = typeof databaseSchema;

/** The database or a transaction on it (drizzle transactions are databases too). */
export type IdentityExecutor = AppDatabase<IdentityDatabaseSchema>;
