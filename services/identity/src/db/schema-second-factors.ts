import { sql } from 'drizzle-orm';
import { bigint, index, integer, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { identitySchema, tenants } from './schema.js';

const timestampTz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Second factors of portal users and staff alike. `account` names the owner as `user:<id>` or
 * `staff:<id>`, the form the audit log already uses, so one set of rules serves both kinds of account.
 */
export const secondFactors = identitySchema.table(
  'second_factors',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    account: text('account').notNull(),
    /** The portal user's tenant; null for staff. */
    tenantId: uuid('tenant_id').references(() => tenants.id),
    /** 'totp' (one per account) or 'passkey' (any number). */
    kind: text('kind').notNull(),
    /** The TOTP secret, AES-256-GCM sealed with SECRETS_KEY (the factor id is the associated data): it must be read back to verify codes. */
    totpSecretSealed: text('totp_secret_sealed'),
    /** The last 30-second step a code was accepted for: a code of that step or an earlier one is a replay. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /** Null until the first code proves the authenticator holds the secret: an unconfirmed factor is never asked for. */
    confirmedAt: timestampTz('confirmed_at'),
    /** Passkeys: the credential id (base64url), unique across all accounts so a passkey alone finds its owner. */
    credentialId: text('credential_id'),
    /** Passkeys: the COSE public key (base64url); public, so stored as is. */
    publicKey: text('public_key'),
    /** Passkeys: the authenticator's signature counter; one that does not move forward suggests a cloned key. */
    signCount: bigint('sign_count', { mode: 'number' }),
    /** Passkeys: how the browser may reach the authenticator (comma-separated: internal, hybrid, usb…). */
    transports: text('transports'),
    /** Passkeys: a name the user recognises in the list. */
    name: text('name'),
    createdAt: timestampTz('created_at').notNull(),
    lastUsedAt: timestampTz('last_used_at'),
  },
  (table) => [
    index('second_factors_account_idx').on(table.account),
    uniqueIndex('second_factors_credential_id_key').on(table.credentialId),
    uniqueIndex('second_factors_one_totp_key').on(table.account).where(sql`kind = 'totp'`),
  ],
);

/** Ten one-time codes per account, stored as SHA-256 (they are 80 random bits: no password hashing needed). */
export const recoveryCodes = identitySchema.table(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    account: text('account').notNull(),
    codeHash: text('code_hash').notNull(),
    createdAt: timestampTz('created_at').notNull(),
    usedAt: timestampTz('used_at'),
  },
  (table) => [index('recovery_codes_account_idx').on(table.account), uniqueIndex('recovery_codes_hash_key').on(table.account, table.codeHash)],
);

/**
 * A password accepted, the second step still owed: the token (stored as SHA-256) leads only to
 * that step, for five minutes, and is spent by the session it turns into.
 */
export const pendingSignIns = identitySchema.table(
  'pending_sign_ins',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    account: text('account').notNull(),
    tenantId: uuid('tenant_id').references(() => tenants.id),
    createdAt: timestampTz('created_at').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    /** Wrong second steps on this token; the address's lockout counts them too. */
    failures: integer('failures').notNull().default(0),
    usedAt: timestampTz('used_at'),
    userAgent: text('user_agent'),
    ipAddress: text('ip_address'),
  },
  (table) => [uniqueIndex('pending_sign_ins_token_hash_key').on(table.tokenHash)],
);

/**
 * A WebAuthn challenge handed out, kept as SHA-256 and spent once within five minutes. `account`
 * binds a registration (and a second step) to its owner; `pendingSignInId` binds a second step to
 * its pending sign-in; neither is set for a passkey used alone, whose owner is found from the credential.
 */
export const webauthnChallenges = identitySchema.table(
  'webauthn_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    challengeHash: text('challenge_hash').notNull(),
    /** 'registration' or 'authentication'. */
    purpose: text('purpose').notNull(),
    account: text('account'),
    pendingSignInId: uuid('pending_sign_in_id').references(() => pendingSignIns.id, { onDelete: 'cascade' }),
    createdAt: timestampTz('created_at').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    usedAt: timestampTz('used_at'),
  },
  (table) => [uniqueIndex('webauthn_challenges_hash_key').on(table.challengeHash), index('webauthn_challenges_expires_idx').on(table.expiresAt)],
);
