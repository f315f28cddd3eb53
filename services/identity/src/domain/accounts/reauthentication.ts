import { AccountLockedError, NotFoundError, ProblemError } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { and, eq, isNull } from 'drizzle-orm';
import { portalSessions, portalUsers, staffSessions, staffUsers, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { announceCredentialsChanged } from '../common/credential-cache.js';
import { LOCKOUT, lockedForSeconds, recordFailure } from './login-throttle.js';
import { checkPassword } from '@svc/accounts';
import { WrongPasswordError } from './portal-account.js';
import { InvalidCodeError, type FactorAccount } from './second-factors/accounts.js';
import { spendSecondStepProof } from './second-factors/factors.js';
import { PasskeyRejectedError, verifyPasskeyAssertion, type RelyingParty } from './second-factors/passkeys.js';

/**
 * How long the password or a second factor given in a session counts as fresh: long enough for a
 * few sensitive changes in a row, short enough that a session left open (or stolen) is not enough.
 */
export const FRESH_AUTHENTICATION_SECONDS = 5 * 60;

/** 403, not 401: the session is fine; the action wants the person behind it to prove themselves again. */
export class ReauthenticationRequiredError extends ProblemError {
  constructor() {
    super({
      status: 403,
      code: 'REAUTHENTICATION_REQUIRED',
      title: 'Re-authentication Required',
      detail: `This action needs your password or a second factor given in the last ${FRESH_AUTHENTICATION_SECONDS / 60} minutes: confirm it, then try again.`,
      extensions: { freshForSeconds: FRESH_AUTHENTICATION_SECONDS },
    });
  }
}

/** Refuses a session whose last password or second factor is older than five minutes. */
export function requireFreshAuthentication(authenticatedAt: Date, now: Date): void {
  if (now.getTime() - authenticatedAt.getTime() > FRESH_AUTHENTICATION_SECONDS * 1000) throw new ReauthenticationRequiredError();
}

/** The password, a code from the authenticator app or a passkey (recovery codes are for a lost device, not for this). */
export type ReauthenticationProof = { password: string } | { code: string } | { passkey: AuthenticationResponseJSON };

/** The session to refresh: a portal user's or an operator's. */
export interface SessionRef {
  kind: 'portal' | 'staff';
  id: string;
}

async function passwordHashOf(db: IdentityExecutor, account: string): Promise<string> {
  const [row] = account.startsWith('user:')
    ? await db.select({ hash: portalUsers.passwordHash }).from(portalUsers).where(eq(portalUsers.id, account.slice('user:'.length)))
    : await db.select({ hash: staffUsers.passwordHash }).from(staffUsers).where(eq(staffUsers.id, account.slice('staff:'.length)));
  if (!row) throw new NotFoundError('The signed-in account no longer exists.');
  return row.hash;
}

/**
 * The signed-in person proves themselves again; the session's authentication time moves to now.
 * A wrong password, code or passkey counts toward the address's sign-in lockout like at sign-in,
 * so a stolen session is no oracle for guessing either.
 */
export async function reauthenticate(
  db: IdentityExecutor,
  box: SecretBox,
  relyingParty: RelyingParty,
  input: { account: FactorAccount; session: SessionRef; proof: ReauthenticationProof; correlationId: string },
  now: Date,
): Promise<{ authenticatedAt: Date }> {
  const { account, proof } = input;
  const locked = await lockedForSeconds(db, account.throttleKey, now);
  if (locked > 0) throw new AccountLockedError(locked);
  const method = 'password' in proof ? 'password' : 'passkey' in proof ? 'passkey' : 'totp';
  let accepted: boolean;
  if ('password' in proof) accepted = (await checkPassword(proof.password, await passwordHashOf(db, account.account))).matches;
  else if ('passkey' in proof) accepted = (await verifyPasskeyAssertion(db, relyingParty, proof.passkey, { account: account.account, pendingSignInId: null }, now)) === account.account;
  else accepted = (await spendSecondStepProof(db, box, account.account, proof, now)) !== null;
  const audit = { tenantId: account.tenantId, actor: account.account, target: `session:${input.session.id}`, correlationId: input.correlationId };
  if (!accepted) {
    const justLocked = await db.transaction(async (tx) => {
      const nowLocked = await recordFailure(tx, account.throttleKey, now);
      await writeAudit(tx, { ...audit, action: 'reauthentication.failed', after: { method } }, now);
      if (nowLocked) await writeAudit(tx, { ...audit, action: 'login.locked', after: { lockedForSeconds: LOCKOUT.lockSeconds } }, now);
      return nowLocked;
    });
    const lockedNote = justLocked ? ` Too many failed attempts: the account is now locked for ${LOCKOUT.lockSeconds / 60} minutes.` : '';
    if (method === 'password') throw new WrongPasswordError(justLocked);
    if (method === 'passkey') throw new PasskeyRejectedError(`The passkey was not accepted.${lockedNote}`);
    throw new InvalidCodeError(`The code is incorrect or has already been used.${lockedNote}`);
  }
  return db.transaction(async (tx) => {
    const refreshed =
      input.session.kind === 'portal'
        ? await tx.update(portalSessions).set({ authenticatedAt: now }).where(and(eq(portalSessions.id, input.session.id), isNull(portalSessions.endedAt))).returning({ id: portalSessions.id })
        : await tx.update(staffSessions).set({ authenticatedAt: now }).where(and(eq(staffSessions.id, input.session.id), isNull(staffSessions.endedAt))).returning({ id: staffSessions.id });
    if (refreshed.length === 0) throw new NotFoundError('The session has ended: sign in again.');
    // The portal's credential cache holds the session's row: every instance re-reads it.
    await announceCredentialsChanged(tx);
    await writeAudit(tx, { ...audit, action: 'reauthentication.succeeded', after: { method } }, now);
    return { authenticatedAt: now };
  });
}
