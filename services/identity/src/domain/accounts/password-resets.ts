import type { Mailer } from '@svc/mailer';
import { AccountDisabledError } from '@svc/problem-json';
import { and, count, eq, gt, min } from 'drizzle-orm';
import type { IdentityExecutor } from '../../db/schema.js';
import { passwordResets } from '../../db/schema-password-resets.js';
import { announceCredentialsChanged } from '../common/credential-cache.js';
import { writeAudit } from '../common/audit.js';
import { hashToken, mintResetToken, PASSWORD_RESET_RULES, refuseResetRequestsBeyondLimits, RESET_TOKEN_BYTES, resetExpiry, resetLinkProblem, ResetLinkUnusableError, type ResetRequestScope } from '@svc/accounts';
import type { IdentityMails } from '../mail/identity-mails.js';
import type { ResetAccounts } from './password-reset-accounts.js';
import type { PortalSignIn } from './portal-sessions.js';
import type { StaffSignIn } from './staff.js';
import { hasSecondFactor } from './second-factors/factors.js';
import { createPendingSignIn } from './second-factors/staged-sign-in.js';

/** The issue's limits: 3 requests per address and 10 per IP address an hour; a link lives 60 minutes and works once. */
export const PASSWORD_RESET = { ...PASSWORD_RESET_RULES, tokenBytes: RESET_TOKEN_BYTES } as const;

/** The stored requests of one scope since an instant, for the shared limits. */
const requestsSince = (tx: IdentityExecutor) => async (scope: ResetRequestScope, since: Date) => {
  const matching = 'ipAddress' in scope ? eq(passwordResets.ipAddress, scope.ipAddress) : eq(passwordResets.email, scope.email);
  const [row] = await tx.select({ requests: count(), oldest: min(passwordResets.createdAt) }).from(passwordResets).where(and(matching, gt(passwordResets.createdAt, since)));
  return { requests: row?.requests ?? 0, oldest: row?.oldest };
};

export interface ResetRequest {
  email: string;
  ipAddress: string | null;
  /** The request's Accept-Language: the mail is written in it when identity writes that language. */
  language: string | null | undefined;
  correlationId: string;
}

/**
 * "Forgot password": the same work and the same answer whether or not the address has an
 * account, so neither the status, the body nor the time tells them apart. Both limits count
 * requests (not mails), known address or not, for the same reason.
 */
export async function requestPasswordReset(db: IdentityExecutor, mailer: Mailer<IdentityMails>, accounts: ResetAccounts, request: ResetRequest, now: Date): Promise<void> {
  const { token, tokenHash } = mintResetToken();
  await db.transaction(async (tx) => {
    await refuseResetRequestsBeyondLimits(requestsSince(tx), request, now);
    const account = await accounts.findActive(tx, request.email);
    await tx.insert(passwordResets).values({
      realm: accounts.realm,
      email: request.email,
      ipAddress: request.ipAddress,
      account: account?.account ?? null,
      tokenHash: account ? tokenHash : null,
      createdAt: now,
      expiresAt: resetExpiry(now, PASSWORD_RESET.validMinutes),
    });
    if (!account) return;
    await mailer.enqueue(tx, { to: request.email, language: request.language, template: 'password-reset', data: { realm: accounts.realm, token, validMinutes: PASSWORD_RESET.validMinutes }, subjectId: account.id }, now);
    await writeAudit(tx, { tenantId: account.tenantId, actor: 'anonymous', action: 'password.reset_requested', target: account.account, correlationId: request.correlationId }, now);
  });
}

export interface ResetConfirmation {
  token: string;
  /** Already checked against the password rules and hashed by the caller (outside the transaction). */
  passwordHash: string;
  correlationId: string;
  userAgent?: string | undefined;
  ipAddress?: string | undefined;
  language: string | null | undefined;
}

/**
 * Spends the link and sets the password; ends every session of the account, clears its lockout,
 * audits password.reset and mails "your password was changed", all in one transaction. Then
 * answers as the realm's sign-in would: a session, or the second step when the account has a second factor.
 */
export async function confirmPasswordReset(db: IdentityExecutor, mailer: Mailer<IdentityMails>, accounts: ResetAccounts, input: ResetConfirmation, now: Date): Promise<PortalSignIn | StaffSignIn> {
  return db.transaction(async (tx) => {
    const [reset] = await tx.select().from(passwordResets).where(eq(passwordResets.tokenHash, hashToken(input.token))).for('update');
    const problem = resetLinkProblem(reset?.realm === accounts.realm && reset.account ? reset : undefined, now);
    if (problem || !reset?.account) throw new ResetLinkUnusableError(problem ?? 'RESET_LINK_NOT_FOUND');
    const user = await accounts.load(tx, reset.account);
    if (!user) throw new ResetLinkUnusableError('RESET_LINK_NOT_FOUND');
    if (!user.active) throw new AccountDisabledError();
    await tx.update(passwordResets).set({ usedAt: now }).where(eq(passwordResets.id, reset.id));
    await accounts.setPassword(tx, user, input.passwordHash, now);
    await announceCredentialsChanged(tx);
    await writeAudit(tx, { tenantId: user.tenantId, actor: user.account, action: 'password.reset', target: user.account, correlationId: input.correlationId }, now);
    await mailer.enqueue(tx, { to: user.email, language: input.language, template: 'password-changed', data: { realm: accounts.realm, email: user.email, changedAt: now.toISOString() }, subjectId: user.id }, now);
    if (await hasSecondFactor(tx, user.account)) {
      const pending = await createPendingSignIn(tx, { account: user.account, tenantId: user.tenantId, userAgent: input.userAgent, ipAddress: input.ipAddress }, now);
      return { kind: 'second-factor' as const, ...pending };
    }
    return accounts.issueSession(tx, user, input, now);
  });
}
