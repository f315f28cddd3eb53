import { AccountLockedError, NotFoundError, ProblemError } from '@svc/problem-json';
import type { IdentityMailer } from '../mail/identity-mailer.js';
import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm';
import { loginThrottle, portalSessions, portalUsers, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { announceCredentialsChanged } from '../common/credential-cache.js';
import { LOCKOUT, lockedForSeconds, recordFailure } from './login-throttle.js';
import type { PortalPrincipal } from './portal-sessions.js';
import { checkPassword, hashPassword } from '@svc/accounts';
import { preferredLanguage } from '../mail/security-notices.js';

/** 403, not 401: the session is fine, and a 401 would send the portal back to its sign-in page. */
export class WrongPasswordError extends ProblemError {
  constructor(locked: boolean) {
    const detail = 'The current password is incorrect.';
    super({
      status: 403,
      code: 'WRONG_PASSWORD',
      title: 'Wrong Password',
      detail: locked ? `${detail} Too many failed attempts: the account is now locked for ${LOCKOUT.lockSeconds / 60} minutes.` : detail,
    });
  }
}

/**
 * Needs the current password (a session left open on a shared computer must not be enough to take
 * the account over); wrong guesses count toward the sign-in lockout of the address. Ends every
 * other session of the user: whoever else knew the old password is signed out.
 */
export async function changePassword(
  db: IdentityExecutor,
  principal: PortalPrincipal,
  input: { currentPassword: string; newPassword: string; correlationId: string; language?: string | undefined },
  now: Date,
  mailer?: IdentityMailer,
): Promise<{ endedSessions: number }> {
  const [user] = await db.select({ email: portalUsers.email, passwordHash: portalUsers.passwordHash }).from(portalUsers).where(eq(portalUsers.id, principal.userId));
  if (!user) throw new NotFoundError('The signed-in user no longer exists.');
  const locked = await lockedForSeconds(db, user.email, now);
  if (locked > 0) throw new AccountLockedError(locked);
  const audit = { tenantId: principal.tenantId, actor: `user:${principal.userId}`, target: `user:${principal.userId}`, correlationId: input.correlationId };
  const { matches } = await checkPassword(input.currentPassword, user.passwordHash);
  if (!matches) {
    const justLocked = await db.transaction(async (tx) => {
      const nowLocked = await recordFailure(tx, user.email, now);
      await writeAudit(tx, { ...audit, action: 'password_change.failed' }, now);
      return nowLocked;
    });
    throw new WrongPasswordError(justLocked);
  }
  const passwordHash = await hashPassword(input.newPassword);
  return db.transaction(async (tx) => {
    await tx.update(portalUsers).set({ passwordHash }).where(eq(portalUsers.id, principal.userId));
    await tx.delete(loginThrottle).where(eq(loginThrottle.email, user.email));
    const ended = await tx
      .update(portalSessions)
      .set({ endedAt: now })
      .where(and(eq(portalSessions.userId, principal.userId), ne(portalSessions.id, principal.sessionId), isNull(portalSessions.endedAt)))
      .returning({ id: portalSessions.id });
    await announceCredentialsChanged(tx);
    await writeAudit(tx, { ...audit, action: 'password.changed', after: { endedSessions: ended.length } }, now);
    // A security notice to the account's own address: if someone else changed it, the owner learns at once.
    // The page's language, else (a bare API call) the one the user last signed in with.
    const language = input.language || (await preferredLanguage(tx, 'user', principal.userId));
    await mailer?.enqueue(tx, { to: user.email, language, template: 'password-changed', data: { realm: 'portal', email: user.email, changedAt: now.toISOString() }, subjectId: principal.userId }, now);
    return { endedSessions: ended.length };
  });
}

const activeSessionsOf = (userId: string, tenantId: string, now: Date) =>
  and(eq(portalSessions.userId, userId), eq(portalSessions.tenantId, tenantId), isNull(portalSessions.endedAt), gt(portalSessions.expiresAt, now));

/** The user's own sessions still running, newest first, with the one making the request marked. */
export async function listOwnSessions(db: IdentityExecutor, principal: PortalPrincipal, now: Date) {
  const rows = await db
    .select({
      id: portalSessions.id,
      createdAt: portalSessions.createdAt,
      lastSeenAt: portalSessions.lastSeenAt,
      expiresAt: portalSessions.expiresAt,
      userAgent: portalSessions.userAgent,
      ipAddress: portalSessions.ipAddress,
    })
    .from(portalSessions)
    .where(activeSessionsOf(principal.userId, principal.tenantId, now))
    .orderBy(desc(portalSessions.createdAt), desc(portalSessions.id));
  return rows.map((row) => ({ ...row, current: row.id === principal.sessionId }));
}

/** Ends one of the user's own sessions (the current one included: that is a sign-out). */
export async function endOwnSession(db: IdentityExecutor, principal: PortalPrincipal, sessionId: string, correlationId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [ended] = await tx
      .update(portalSessions)
      .set({ endedAt: now })
      .where(and(eq(portalSessions.id, sessionId), activeSessionsOf(principal.userId, principal.tenantId, now)))
      .returning({ id: portalSessions.id });
    if (!ended) throw new NotFoundError(`You have no active session with id ${sessionId}.`);
    await announceCredentialsChanged(tx);
    await writeAudit(tx, { tenantId: principal.tenantId, actor: `user:${principal.userId}`, action: 'session.ended', target: `session:${sessionId}`, correlationId }, now);
  });
}

/** An admin ends every session of a user of the same tenant (themselves included). */
export async function endAllSessionsOfUser(db: IdentityExecutor, principal: PortalPrincipal, userId: string, correlationId: string, now: Date): Promise<{ endedSessions: number }> {
  return db.transaction(async (tx) => {
    const [user] = await tx.select({ id: portalUsers.id }).from(portalUsers).where(and(eq(portalUsers.id, userId), eq(portalUsers.tenantId, principal.tenantId)));
    if (!user) throw new NotFoundError(`No user with id ${userId} in this tenant.`);
    const ended = await tx
      .update(portalSessions)
      .set({ endedAt: now })
      .where(activeSessionsOf(userId, principal.tenantId, now))
      .returning({ id: portalSessions.id });
    await announceCredentialsChanged(tx);
    await writeAudit(tx, { tenantId: principal.tenantId, actor: `user:${principal.userId}`, action: 'user.sessions_ended', target: `user:${userId}`, correlationId, after: { endedSessions: ended.length } }, now);
    return { endedSessions: ended.length };
  });
}
