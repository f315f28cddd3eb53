import { AccountLockedError, UnauthenticatedError } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { loginThrottle, type IdentityExecutor } from '../../../db/schema.js';
import { pendingSignIns } from '../../../db/schema-second-factors.js';
import { writeAudit } from '../../common/audit.js';
import { generateOpaqueToken, hashToken } from '@svc/accounts';
import { LOCKOUT, lockedForSeconds, recordFailure } from '../login-throttle.js';
import { InvalidCodeError, type FactorAccount } from './accounts.js';
import { spendSecondStepProof, type SecondStepProof } from './factors.js';
import { verifyPasskeyAssertion, type RelyingParty } from './passkeys.js';

export const PENDING_SIGN_IN_PREFIX = 'svc_pp_';
/** Long enough to open the authenticator app, short enough that a stolen token is soon worthless. */
export const PENDING_SIGN_IN_SECONDS = 5 * 60;

export interface PendingSignIn {
  id: string;
  account: string;
  tenantId: string | null;
  userAgent: string | null;
  ipAddress: string | null;
}

/** After a right password: a token that leads only to the second step, never to a session by itself. */
export async function createPendingSignIn(
  tx: IdentityExecutor,
  input: { account: string; tenantId: string | null; userAgent?: string | undefined; ipAddress?: string | undefined },
  now: Date,
): Promise<{ pendingSignInToken: string; expiresAt: Date }> {
  const pendingSignInToken = generateOpaqueToken(PENDING_SIGN_IN_PREFIX, 32);
  const expiresAt = new Date(now.getTime() + PENDING_SIGN_IN_SECONDS * 1000);
  await tx.insert(pendingSignIns).values({
    tokenHash: hashToken(pendingSignInToken),
    account: input.account,
    tenantId: input.tenantId,
    createdAt: now,
    expiresAt,
    userAgent: input.userAgent?.slice(0, 400) ?? null,
    ipAddress: input.ipAddress ?? null,
  });
  return { pendingSignInToken, expiresAt };
}

const EXPIRED = 'The sign-in has expired or was already completed: enter your password again.';

/**
 * The second step: a TOTP or recovery code against the pending sign-in. Wrong codes count toward
 * the address's lockout exactly like wrong passwords (and the password step does not reset the
 * count while a second step is owed, so guessing cannot restart by re-entering the password).
 * The session is issued in the same transaction that spends the pending token.
 */
export async function completeSecondStep<Session>(
  db: IdentityExecutor,
  box: SecretBox,
  input: { pendingSignInToken: string; proof: SecondStepProof; correlationId: string; relyingParty: RelyingParty },
  now: Date,
  accountOf: (pending: PendingSignIn) => Promise<FactorAccount>,
  issueSession: (tx: IdentityExecutor, pending: PendingSignIn) => Promise<Session>,
): Promise<Session> {
  if (!input.pendingSignInToken.startsWith(PENDING_SIGN_IN_PREFIX)) throw new UnauthenticatedError(EXPIRED);
  const [pending] = await db
    .select({ id: pendingSignIns.id, account: pendingSignIns.account, tenantId: pendingSignIns.tenantId, userAgent: pendingSignIns.userAgent, ipAddress: pendingSignIns.ipAddress })
    .from(pendingSignIns)
    .where(and(eq(pendingSignIns.tokenHash, hashToken(input.pendingSignInToken)), isNull(pendingSignIns.usedAt), gt(pendingSignIns.expiresAt, now)));
  if (!pending) throw new UnauthenticatedError(EXPIRED);
  const account = await accountOf(pending);
  const locked = await lockedForSeconds(db, account.throttleKey, now);
  if (locked > 0) throw new AccountLockedError(locked);
  const audit = { tenantId: account.tenantId, actor: account.account, target: account.account, correlationId: input.correlationId };
  const { proof } = input;
  const method = 'recoveryCode' in proof ? 'recovery-code' : 'passkey' in proof ? 'passkey' : 'totp';
  const spent =
    'passkey' in proof
      ? (await verifyPasskeyAssertion(db, input.relyingParty, proof.passkey, { account: account.account, pendingSignInId: pending.id }, now)) && { kind: 'passkey' as const }
      : await spendSecondStepProof(db, box, account.account, proof, now);
  if (!spent) {
    const justLocked = await db.transaction(async (tx) => {
      const nowLocked = await recordFailure(tx, account.throttleKey, now);
      // A locked address also ends the pending sign-in: after the lock, the password is asked again.
      await tx
        .update(pendingSignIns)
        .set({ failures: sql`${pendingSignIns.failures} + 1`, ...(nowLocked ? { usedAt: now } : {}) })
        .where(eq(pendingSignIns.id, pending.id));
      await writeAudit(tx, { ...audit, action: 'second_factor.failed', after: { method } }, now);
      if (nowLocked) await writeAudit(tx, { ...audit, action: 'login.locked', after: { lockedForSeconds: LOCKOUT.lockSeconds } }, now);
      return nowLocked;
    });
    throw new InvalidCodeError(justLocked ? `The ${method === 'passkey' ? 'passkey was not accepted' : 'code is incorrect'}. Too many failed attempts: the account is now locked for ${LOCKOUT.lockSeconds / 60} minutes.` : undefined);
  }
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(pendingSignIns)
      .set({ usedAt: now })
      .where(and(eq(pendingSignIns.id, pending.id), isNull(pendingSignIns.usedAt)))
      .returning({ id: pendingSignIns.id });
    if (!claimed) throw new UnauthenticatedError(EXPIRED);
    await tx.delete(loginThrottle).where(eq(loginThrottle.email, account.throttleKey));
    await writeAudit(tx, { ...audit, action: 'second_factor.succeeded', after: { method: spent.kind } }, now);
    return issueSession(tx, pending);
  });
}
