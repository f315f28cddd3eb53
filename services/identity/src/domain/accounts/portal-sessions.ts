import { AccountDisabledError, AccountLockedError, UnauthenticatedError } from '@svc/problem-json';
import { and, eq, isNull } from 'drizzle-orm';
import { loginThrottle, portalSessions, portalUsers, tenants, type IdentityExecutor } from '../../db/schema.js';
import { announceCredentialsChanged, type CredentialCache } from '../common/credential-cache.js';
import { writeAudit } from '../common/audit.js';
import { LOCKOUT, lockedForSeconds, recordFailure } from './login-throttle.js';
import { generateOpaqueToken, hashToken } from '@svc/accounts';
import { checkPassword, hashPassword, UNKNOWN_USER_PASSWORD_HASH } from '@svc/accounts';
import type { SecretBox } from '@svc/service-kit';
import type { FactorAccount } from './second-factors/accounts.js';
import { hasSecondFactor, type SecondStepProof } from './second-factors/factors.js';
import { completeSecondStep, createPendingSignIn } from './second-factors/staged-sign-in.js';
import { passkeyOwner, verifyPasskeyAssertion, type RelyingParty } from './second-factors/passkeys.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';

export const PORTAL_SESSION_PREFIX = 'svc_ps_';
export const PORTAL_SESSION_SECONDS = 8 * 3600;
/** lastSeenAt is written at most this often: one write a minute per session, not one per request. */
const LAST_SEEN_WRITE_SECONDS = 60;

export interface PortalPrincipal {
  userId: string;
  tenantId: string;
  role: string;
  sessionId: string;
  /** Signed in without the second factor the tenant requires: only enrolment routes accept it. */
  enrolmentOnly: boolean;
  /** The last password or second factor given in this session (sign-in or re-authentication). */
  authenticatedAt: Date;
}

const INVALID_LOGIN = 'The email or password is incorrect.';
const USER_DISABLED = 'This user has been disabled by an administrator of the tenant.';

export type PortalSignIn =
  | { kind: 'session'; sessionToken: string; expiresAt: Date; userId: string; tenantId: string; enrolmentOnly: boolean }
  | { kind: 'second-factor'; pendingSignInToken: string; expiresAt: Date };

interface SignInMeta {
  correlationId: string;
  userAgent?: string | null | undefined;
  ipAddress?: string | null | undefined;
}

/** The portal user as the second-factor rules see them. */
export const portalFactorAccount = (user: { id: string; tenantId: string; email: string }): FactorAccount => ({
  account: `user:${user.id}`,
  tenantId: user.tenantId,
  throttleKey: user.email,
  email: user.email,
});

/**
 * The password step. With a second factor the session waits for the second step (a pending
 * sign-in token); without one while the tenant requires it, the session may only enrol one.
 */
export async function login(db: IdentityExecutor, input: { email: string; password: string; language?: string | undefined } & SignInMeta, now: Date): Promise<PortalSignIn> {
  const { email, correlationId } = input;
  const locked = await lockedForSeconds(db, email, now);
  if (locked > 0) throw new AccountLockedError(locked);
  const [user] = await db
    .select({ id: portalUsers.id, tenantId: portalUsers.tenantId, passwordHash: portalUsers.passwordHash, userStatus: portalUsers.status, tenantStatus: tenants.status, requireSecondFactor: tenants.requireSecondFactor })
    .from(portalUsers)
    .innerJoin(tenants, eq(tenants.id, portalUsers.tenantId))
    .where(eq(portalUsers.email, email));
  // One Argon2id either way: an unknown address answers like a wrong password, in the same time.
  const { matches: passwordMatches, upgrade } = await checkPassword(input.password, user?.passwordHash ?? (await UNKNOWN_USER_PASSWORD_HASH));
  if (!user || !passwordMatches) {
    const nowLocked = await db.transaction(async (tx) => {
      const justLocked = await recordFailure(tx, email, now);
      const audit = { tenantId: user?.tenantId ?? null, actor: user ? `user:${user.id}` : 'anonymous', target: `email:${email}`, correlationId };
      await writeAudit(tx, { ...audit, action: 'login.failed' }, now);
      if (justLocked) await writeAudit(tx, { ...audit, action: 'login.locked', after: { lockedForSeconds: LOCKOUT.lockSeconds } }, now);
      return justLocked;
    });
    if (nowLocked) throw new UnauthenticatedError(`${INVALID_LOGIN} Too many failed attempts: the account is now locked for ${LOCKOUT.lockSeconds / 60} minutes.`);
    throw new UnauthenticatedError(INVALID_LOGIN);
  }
  if (user.tenantStatus !== 'active' || user.userStatus !== 'active') {
    const reason = user.tenantStatus !== 'active' ? 'tenant disabled' : 'user disabled';
    await writeAudit(db, { tenantId: user.tenantId, actor: `user:${user.id}`, action: 'login.refused', target: `email:${email}`, correlationId, after: { reason } }, now);
    throw user.tenantStatus !== 'active' ? new AccountDisabledError() : new AccountDisabledError(USER_DISABLED);
  }
  // The password is known only now: the moment to replace a hash made with an older scheme, and
  // to remember the page's language, which the user's later mails are written in.
  if (upgrade || input.language) {
    await db
      .update(portalUsers)
      .set({ ...(upgrade ? { passwordHash: await hashPassword(input.password) } : {}), ...(input.language ? { preferredLanguage: input.language } : {}) })
      .where(eq(portalUsers.id, user.id));
  }
  const account = `user:${user.id}`;
  if (await hasSecondFactor(db, account)) {
    return db.transaction(async (tx) => {
      const pending = await createPendingSignIn(tx, { account, tenantId: user.tenantId, userAgent: input.userAgent ?? undefined, ipAddress: input.ipAddress ?? undefined }, now);
      await writeAudit(tx, { tenantId: user.tenantId, actor: account, action: 'login.second_factor_required', target: `email:${email}`, correlationId }, now);
      return { kind: 'second-factor' as const, ...pending };
    });
  }
  return db.transaction(async (tx) => {
    await tx.delete(loginThrottle).where(eq(loginThrottle.email, email));
    return issuePortalSession(tx, { userId: user.id, tenantId: user.tenantId, enrolmentOnly: user.requireSecondFactor }, input, now);
  });
}

/** The session at the end of a sign-in (after the password alone, or after the second step). */
export async function issuePortalSession(
  tx: IdentityExecutor,
  user: { userId: string; tenantId: string; enrolmentOnly: boolean },
  meta: SignInMeta,
  now: Date,
): Promise<PortalSignIn & { kind: 'session' }> {
  const sessionToken = generateOpaqueToken(PORTAL_SESSION_PREFIX, 32);
  const expiresAt = new Date(now.getTime() + PORTAL_SESSION_SECONDS * 1000);
  const [session] = await tx
    .insert(portalSessions)
    .values({
      tokenHash: hashToken(sessionToken),
      userId: user.userId,
      tenantId: user.tenantId,
      createdAt: now,
      expiresAt,
      lastSeenAt: now,
      authenticatedAt: now,
      enrolmentOnly: user.enrolmentOnly,
      userAgent: meta.userAgent?.slice(0, 400) ?? null,
      ipAddress: meta.ipAddress ?? null,
    })
    .returning({ id: portalSessions.id });
  const after = user.enrolmentOnly ? { enrolmentOnly: true } : null;
  await writeAudit(tx, { tenantId: user.tenantId, actor: `user:${user.userId}`, action: 'login.succeeded', target: `session:${session?.id}`, correlationId: meta.correlationId, after }, now);
  return { kind: 'session', sessionToken, expiresAt, userId: user.userId, tenantId: user.tenantId, enrolmentOnly: user.enrolmentOnly };
}

/** The second step of a portal sign-in: a TOTP or recovery code in exchange for the pending token. */
export async function completePortalSecondStep(
  db: IdentityExecutor,
  box: SecretBox,
  input: { pendingSignInToken: string; proof: SecondStepProof; correlationId: string; relyingParty: RelyingParty },
  now: Date,
): Promise<PortalSignIn & { kind: 'session' }> {
  return completeSecondStep(
    db,
    box,
    input,
    now,
    async (pending) => portalFactorAccount(await portalUserOf(db, pending.account)),
    async (tx, pending) => {
      const user = await portalUserOf(tx, pending.account);
      if (user.tenantStatus !== 'active') throw new AccountDisabledError();
      if (user.userStatus !== 'active') throw new AccountDisabledError(USER_DISABLED);
      return issuePortalSession(tx, { userId: user.id, tenantId: user.tenantId, enrolmentOnly: false }, { ...pending, correlationId: input.correlationId }, now);
    },
  );
}

const PASSKEY_REFUSED = 'The passkey was not accepted: sign in with your password, or try another passkey.';

/**
 * A passkey alone (a discoverable credential, user verification required): it is possession and
 * a PIN or fingerprint in one, so it signs in without the password and without a further step.
 * Failures count toward the owner's lockout like wrong passwords.
 */
export async function signInWithPasskey(db: IdentityExecutor, relyingParty: RelyingParty, response: AuthenticationResponseJSON, meta: SignInMeta, now: Date): Promise<PortalSignIn & { kind: 'session' }> {
  const owner = await passkeyOwner(db, response.id);
  const user = owner?.startsWith('user:') ? await portalUserOf(db, owner) : null;
  if (user) {
    const locked = await lockedForSeconds(db, user.email, now);
    if (locked > 0) throw new AccountLockedError(locked);
  }
  const verified = await verifyPasskeyAssertion(db, relyingParty, response, { account: null, pendingSignInId: null }, now);
  if (!user || verified !== owner) {
    if (user) {
      await db.transaction(async (tx) => {
        const audit = { tenantId: user.tenantId, actor: `user:${user.id}`, target: `email:${user.email}`, correlationId: meta.correlationId };
        await writeAudit(tx, { ...audit, action: 'login.failed', after: { method: 'passkey' } }, now);
        if (await recordFailure(tx, user.email, now)) await writeAudit(tx, { ...audit, action: 'login.locked', after: { lockedForSeconds: LOCKOUT.lockSeconds } }, now);
      });
    }
    throw new UnauthenticatedError(PASSKEY_REFUSED);
  }
  if (user.tenantStatus !== 'active' || user.userStatus !== 'active') {
    const reason = user.tenantStatus !== 'active' ? 'tenant disabled' : 'user disabled';
    await writeAudit(db, { tenantId: user.tenantId, actor: `user:${user.id}`, action: 'login.refused', target: `email:${user.email}`, correlationId: meta.correlationId, after: { reason, method: 'passkey' } }, now);
    throw user.tenantStatus !== 'active' ? new AccountDisabledError() : new AccountDisabledError(USER_DISABLED);
  }
  return db.transaction(async (tx) => {
    await tx.delete(loginThrottle).where(eq(loginThrottle.email, user.email));
    return issuePortalSession(tx, { userId: user.id, tenantId: user.tenantId, enrolmentOnly: false }, meta, now);
  });
}

async function portalUserOf(db: IdentityExecutor, account: string) {
  const [user] = await db
    .select({ id: portalUsers.id, tenantId: portalUsers.tenantId, email: portalUsers.email, userStatus: portalUsers.status, tenantStatus: tenants.status })
    .from(portalUsers)
    .innerJoin(tenants, eq(tenants.id, portalUsers.tenantId))
    .where(eq(portalUsers.id, account.slice('user:'.length)));
  if (!user) throw new UnauthenticatedError('The sign-in has expired or was already completed: enter your password again.');
  return user;
}

function sessionLookup(db: IdentityExecutor, tokenHash: string) {
  return db
    .select({ sessionId: portalSessions.id, userId: portalUsers.id, tenantId: portalSessions.tenantId, role: portalUsers.role, userStatus: portalUsers.status, expiresAt: portalSessions.expiresAt, lastSeenAt: portalSessions.lastSeenAt, enrolmentOnly: portalSessions.enrolmentOnly, authenticatedAt: portalSessions.authenticatedAt, tenantStatus: tenants.status })
    .from(portalSessions)
    .innerJoin(portalUsers, eq(portalUsers.id, portalSessions.userId))
    .innerJoin(tenants, eq(tenants.id, portalSessions.tenantId))
    .where(and(eq(portalSessions.tokenHash, tokenHash), isNull(portalSessions.endedAt)));
}

type SessionRow = Awaited<ReturnType<typeof sessionLookup>>[number];

/**
 * One indexed look-up, remembered briefly in the credential cache; the tenant's status and the
 * session's end are announced when they change, so disabling a tenant or logging out still ends
 * its sessions at once.
 */
export async function authenticatePortalSession(db: IdentityExecutor, sessionToken: string, now: Date, cache?: CredentialCache): Promise<PortalPrincipal> {
  if (!sessionToken.startsWith(PORTAL_SESSION_PREFIX)) throw new UnauthenticatedError('The portal session is missing, expired or invalid.');
  const tokenHash = hashToken(sessionToken);
  const key = `ps:${tokenHash}`;
  let row = cache?.get<SessionRow>(key);
  if (!row) {
    const generation = cache?.generation ?? 0;
    [row] = await sessionLookup(db, tokenHash);
    if (row) cache?.set(key, row, generation);
  }
  if (!row || row.expiresAt.getTime() <= now.getTime()) throw new UnauthenticatedError('The portal session is missing, expired or invalid.');
  if (row.tenantStatus !== 'active') throw new AccountDisabledError();
  // Disabling a user ends their sessions too; this is the second line should one be missed.
  if (row.userStatus !== 'active') throw new AccountDisabledError(USER_DISABLED);
  if (row.lastSeenAt === null || now.getTime() - row.lastSeenAt.getTime() >= LAST_SEEN_WRITE_SECONDS * 1000) {
    // The cached row is moved too, so the next requests of this minute write nothing.
    row.lastSeenAt = now;
    await db.update(portalSessions).set({ lastSeenAt: now }).where(eq(portalSessions.id, row.sessionId));
  }
  return { userId: row.userId, tenantId: row.tenantId, role: row.role, sessionId: row.sessionId, enrolmentOnly: row.enrolmentOnly, authenticatedAt: row.authenticatedAt };
}

export async function endPortalSession(db: IdentityExecutor, principal: PortalPrincipal, correlationId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(portalSessions).set({ endedAt: now }).where(and(eq(portalSessions.id, principal.sessionId), isNull(portalSessions.endedAt)));
    await announceCredentialsChanged(tx);
    await writeAudit(tx, { tenantId: principal.tenantId, actor: `user:${principal.userId}`, action: 'logout', target: `session:${principal.sessionId}`, correlationId }, now);
  });
}

/** Who is signed in, for the portal's header and its role-dependent controls. */
export async function describePortalSession(db: IdentityExecutor, principal: PortalPrincipal) {
  const [row] = await db
    .select({ email: portalUsers.email, role: portalUsers.role, tenantName: tenants.name, sandbox: tenants.sandbox, evidenceRetentionDays: tenants.evidenceRetentionDays, requireSecondFactor: tenants.requireSecondFactor, expiresAt: portalSessions.expiresAt, enrolmentOnly: portalSessions.enrolmentOnly })
    .from(portalSessions)
    .innerJoin(portalUsers, eq(portalUsers.id, portalSessions.userId))
    .innerJoin(tenants, eq(tenants.id, portalSessions.tenantId))
    .where(eq(portalSessions.id, principal.sessionId));
  if (!row) throw new UnauthenticatedError('The portal session is missing, expired or invalid.');
  return {
    user: { id: principal.userId, email: row.email, role: row.role },
    tenant: { id: principal.tenantId, name: row.tenantName, sandbox: row.sandbox, evidenceRetentionDays: row.evidenceRetentionDays, requireSecondFactor: row.requireSecondFactor },
    expiresAt: row.expiresAt.toISOString(),
    enrolmentOnly: row.enrolmentOnly,
  };
}
