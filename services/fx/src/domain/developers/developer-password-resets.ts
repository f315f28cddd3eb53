import { hashToken, mintResetToken, PASSWORD_RESET_RULES, refuseResetRequestsBeyondLimits, resetExpiry, resetLinkProblem, ResetLinkUnusableError, type ResetRequestScope } from '@svc/accounts';
import { and, count, eq, gt, min, sql } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { developerAccounts, developerPasswordResets, developerTokens } from '../../db/schema.js';
import type { FxMailer } from '../mail/fx-mailer.js';

/** identity's rules: 3 requests per address and 10 per IP address an hour; a link lives 60 minutes and works once. */
export const DEVELOPER_PASSWORD_RESET = PASSWORD_RESET_RULES;

/** The stored requests of one scope since an instant, for the shared limits. */
const requestsSince = (tx: FxExecutor) => async (scope: ResetRequestScope, since: Date) => {
  const matching = 'ipAddress' in scope ? eq(developerPasswordResets.ipAddress, scope.ipAddress) : eq(developerPasswordResets.email, scope.email);
  const [row] = await tx.select({ requests: count(), oldest: min(developerPasswordResets.createdUtc) }).from(developerPasswordResets).where(and(matching, gt(developerPasswordResets.createdUtc, since)));
  return { requests: row?.requests ?? 0, oldest: row?.oldest };
};

/**
 * "Forgot password": the same work, the same answer and a stored request whether or not the
 * address has an account; only an existing account is mailed a link, in its own language.
 */
export async function requestDeveloperPasswordReset(db: FxExecutor, mailer: FxMailer, request: { email: string; ipAddress: string | null }, now: Date): Promise<void> {
  const { token, tokenHash } = mintResetToken();
  await db.transaction(async (tx) => {
    await refuseResetRequestsBeyondLimits(requestsSince(tx), request, now);
    const [account] = await tx.select({ id: developerAccounts.id, language: developerAccounts.language }).from(developerAccounts).where(eq(developerAccounts.email, request.email));
    await tx.insert(developerPasswordResets).values({
      email: request.email,
      ipAddress: request.ipAddress,
      accountId: account?.id ?? null,
      tokenHash: account ? tokenHash : null,
      createdUtc: now,
      expiresUtc: resetExpiry(now, DEVELOPER_PASSWORD_RESET.validMinutes),
    });
    if (!account) return;
    await mailer.enqueue(tx, { to: request.email, language: account.language, template: 'password-reset', data: { token, validMinutes: DEVELOPER_PASSWORD_RESET.validMinutes }, subjectId: account.id }, now);
  });
}

/**
 * Spends the link and sets the password (already checked and hashed by the caller); in the same
 * transaction ends every session of the account, clears its lockout, counts the address as
 * confirmed (the link reached it) and mails "your password was changed".
 */
export async function confirmDeveloperPasswordReset(db: FxExecutor, mailer: FxMailer, input: { token: string; passwordHash: string }, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [reset] = await tx.select().from(developerPasswordResets).where(eq(developerPasswordResets.tokenHash, hashToken(input.token))).for('update');
    const problem = resetLinkProblem(reset?.accountId ? { usedAt: reset.usedUtc, expiresAt: reset.expiresUtc } : undefined, now);
    if (problem || !reset?.accountId) throw new ResetLinkUnusableError(problem ?? 'RESET_LINK_NOT_FOUND');
    await tx.update(developerPasswordResets).set({ usedUtc: now }).where(eq(developerPasswordResets.id, reset.id));
    const [account] = await tx
      .update(developerAccounts)
      .set({ passwordHash: input.passwordHash, failedSignIns: 0, failureWindowStartedUtc: null, lockedUntilUtc: null, emailVerifiedUtc: sql`coalesce(${developerAccounts.emailVerifiedUtc}, ${now.toISOString()}::timestamptz)` })
      .where(eq(developerAccounts.id, reset.accountId))
      .returning({ id: developerAccounts.id, email: developerAccounts.email, language: developerAccounts.language });
    if (!account) throw new ResetLinkUnusableError('RESET_LINK_NOT_FOUND');
    await tx.delete(developerTokens).where(and(eq(developerTokens.accountId, account.id), eq(developerTokens.purpose, 'session')));
    await mailer.enqueue(tx, { to: account.email, language: account.language, template: 'password-changed', data: { email: account.email, changedAt: now.toISOString() }, subjectId: account.id }, now);
  });
}
