import { randomBytes } from 'node:crypto';
import type { Mailer } from '@svc/mailer';
import { AccountDisabledError, ProblemError, RateLimitedError } from '@svc/problem-json';
import { and, count, eq, gt, min } from 'drizzle-orm';
import type { IdentityExecutor } from '../../db/schema.js';
import { passwordResets } from '../../db/schema-password-resets.js';
import { announceCredentialsChanged } from '../common/credential-cache.js';
import { writeAudit } from '../common/audit.js';
import { hashToken } from '@svc/accounts';
import type { IdentityMails } from '../mail/identity-mails.js';
import type { ResetAccounts } from './password-reset-accounts.js';
import type { PortalSignIn } from './portal-sessions.js';
import type { StaffSignIn } from './staff.js';
import { hasSecondFactor } from './second-factors/factors.js';
import { createPendingSignIn } from './second-factors/staged-sign-in.js';

/** The issue's limits: 3 requests per address and 10 per IP address an hour; a link lives 60 minutes and works once. */
export const PASSWORD_RESET = { perAddressPerHour: 3, perIpPerHour: 10, validMinutes: 60, tokenBytes: 32 } as const;
const HOUR_MS = 3_600_000;

const RESET_PROBLEMS = {
  RESET_LINK_NOT_FOUND: [404, 'This password reset link is not valid: check that the whole link was copied, or ask for a new one on the sign-in page.'],
  RESET_LINK_EXPIRED: [410, `This password reset link has expired (links are valid for ${PASSWORD_RESET.validMinutes} minutes): ask for a new one on the sign-in page.`],
  RESET_LINK_USED: [410, 'This password reset link was already used: sign in with the new password, or ask for a new link on the sign-in page.'],
} as const;

/** A reset link that cannot be used: 404 when unknown, 410 Gone when it was valid once. */
export class ResetLinkUnusableError extends ProblemError {
  constructor(code: keyof typeof RESET_PROBLEMS) {
    const [status, detail] = RESET_PROBLEMS[code];
    super({ status, code, title: status === 404 ? 'Not Found' : 'Reset Link Unusable', detail });
  }
}

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
  const since = new Date(now.getTime() - HOUR_MS);
  const token = randomBytes(PASSWORD_RESET.tokenBytes).toString('base64url');
  await db.transaction(async (tx) => {
    if (request.ipAddress) await refuseBeyond(tx, eq(passwordResets.ipAddress, request.ipAddress), since, PASSWORD_RESET.perIpPerHour, now, 'from this network');
    await refuseBeyond(tx, eq(passwordResets.email, request.email), since, PASSWORD_RESET.perAddressPerHour, now, 'for this address');
    const account = await accounts.findActive(tx, request.email);
    await tx.insert(passwordResets).values({
      realm: accounts.realm,
      email: request.email,
      ipAddress: request.ipAddress,
      account: account?.account ?? null,
      tokenHash: account ? hashToken(token) : null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PASSWORD_RESET.validMinutes * 60_000),
    });
    if (!account) return;
    await mailer.enqueue(tx, { to: request.email, language: request.language, template: 'password-reset', data: { realm: accounts.realm, token, validMinutes: PASSWORD_RESET.validMinutes }, subjectId: account.id }, now);
    await writeAudit(tx, { tenantId: account.tenantId, actor: 'anonymous', action: 'password.reset_requested', target: account.account, correlationId: request.correlationId }, now);
  });
}

async function refuseBeyond(tx: IdentityExecutor, where: ReturnType<typeof eq>, since: Date, limit: number, now: Date, scope: string): Promise<void> {
  const [row] = await tx.select({ requests: count(), oldest: min(passwordResets.createdAt) }).from(passwordResets).where(and(where, gt(passwordResets.createdAt, since)));
  if ((row?.requests ?? 0) < limit) return;
  const retryAfter = Math.max(1, Math.ceil(((row?.oldest?.getTime() ?? now.getTime()) + HOUR_MS - now.getTime()) / 1000));
  throw new RateLimitedError(retryAfter, `Too many password reset requests ${scope} in the last hour. Retry after ${Math.ceil(retryAfter / 60)} minutes.`);
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
    if (!reset || reset.realm !== accounts.realm || !reset.account) throw new ResetLinkUnusableError('RESET_LINK_NOT_FOUND');
    if (reset.usedAt) throw new ResetLinkUnusableError('RESET_LINK_USED');
    if (reset.expiresAt.getTime() <= now.getTime()) throw new ResetLinkUnusableError('RESET_LINK_EXPIRED');
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
