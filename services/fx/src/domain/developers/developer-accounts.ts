import { checkPassword, generateOpaqueToken, hashPassword, hashToken, newPasswordSchema, UNKNOWN_USER_PASSWORD_HASH } from '@svc/accounts';
import { AccountLockedError, ForbiddenError, ProblemError, UnauthenticatedError } from '@svc/problem-json';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { FxExecutor } from '../../db/executor.js';
import { developerAccounts, developerTokens } from '../../db/schema.js';
import { parseField } from '../clients/api-clients.js';
import type { FxMailer } from '../mail/fx-mailer.js';

/** Five failed sign-ins within 15 minutes lock the account for 15 minutes (identity's rule). */
export const DEVELOPER_LOCKOUT = { failures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };
export const VERIFY_LINK_HOURS = 24;
export const SESSION_DAYS = 7;
const HOUR = 3_600_000;

export type DeveloperAccount = typeof developerAccounts.$inferSelect;

export const developerEmailSchema = z
  .email({ error: 'must be an email address' })
  .max(254, 'must be at most 254 characters')
  .transform((email) => email.toLowerCase());

async function issueToken(tx: FxExecutor, accountId: string, purpose: 'session' | 'verify', validMs: number, now: Date): Promise<string> {
  const token = generateOpaqueToken(purpose === 'session' ? 'fxs_' : 'fxv_', 32);
  await tx.insert(developerTokens).values({ tokenHash: hashToken(token), accountId, purpose, expiresUtc: new Date(now.getTime() + validMs), createdUtc: now });
  return token;
}

/**
 * Sign-up answers the same for a new and a known address: a new one gets an account and a
 * verification link, a known one a mail saying it already has an account. The password is hashed
 * either way, so both cost one Argon2id.
 */
export async function signUp(tx: FxExecutor, mailer: FxMailer, input: { email: string; password: string; language: string }, now: Date): Promise<void> {
  const email = parseField(developerEmailSchema, input.email, 'email');
  const password = parseField(newPasswordSchema, input.password, 'password');
  const passwordHash = await hashPassword(password);
  const [created] = await tx
    .insert(developerAccounts)
    .values({ email, passwordHash, language: input.language, createdUtc: now })
    .onConflictDoNothing({ target: developerAccounts.email })
    .returning({ id: developerAccounts.id });
  if (!created) {
    const [existing] = await tx.select({ id: developerAccounts.id, language: developerAccounts.language }).from(developerAccounts).where(eq(developerAccounts.email, email));
    await mailer.enqueue(tx, { to: email, language: existing?.language ?? input.language, template: 'account-exists', data: { email }, subjectId: existing?.id ?? null }, now);
    return;
  }
  const token = await issueToken(tx, created.id, 'verify', VERIFY_LINK_HOURS * HOUR, now);
  await mailer.enqueue(tx, { to: email, language: input.language, template: 'verify-email', data: { token, validHours: VERIFY_LINK_HOURS }, subjectId: created.id }, now);
}

class LinkGoneError extends ProblemError {
  constructor() {
    super({ status: 410, code: 'LINK_GONE', title: 'Link Gone', detail: 'This verification link was already used or has expired. Sign in, or sign up again to get a new link.' });
  }
}

/** A verification link works once within 24 hours; it verifies the address and signs in. */
export async function verifyAddress(tx: FxExecutor, token: string, now: Date): Promise<{ account: DeveloperAccount; session: string }> {
  const [row] = await tx
    .select()
    .from(developerTokens)
    .where(and(eq(developerTokens.tokenHash, hashToken(token)), eq(developerTokens.purpose, 'verify')))
    .for('update');
  if (!row) throw new ProblemError({ status: 404, code: 'NOT_FOUND', title: 'Not Found', detail: 'This verification link is unknown. Check that the whole link was opened, or sign up again.' });
  if (row.usedUtc || row.expiresUtc <= now) throw new LinkGoneError();
  await tx.update(developerTokens).set({ usedUtc: now }).where(eq(developerTokens.tokenHash, row.tokenHash));
  const [account] = await tx.update(developerAccounts).set({ emailVerifiedUtc: sql`coalesce(${developerAccounts.emailVerifiedUtc}, ${now.toISOString()}::timestamptz)` }).where(eq(developerAccounts.id, row.accountId)).returning();
  if (!account) throw new LinkGoneError();
  return { account, session: await issueToken(tx, account.id, 'session', SESSION_DAYS * 24 * HOUR, now) };
}

/**
 * Email and password; the lock is checked first, for known and unknown addresses alike, and an
 * unknown address costs the same Argon2id as a known one. A failure is counted atomically.
 */
export async function signIn(db: FxExecutor, input: { email: string; password: string }, now: Date): Promise<{ account: DeveloperAccount; session: string }> {
  // The failure is counted in a transaction that commits: the error is thrown only after it.
  const outcome = await db.transaction(async (tx): Promise<{ account: DeveloperAccount; session: string } | { error: ProblemError }> => {
    try {
      return await signInWithin(tx, input, now);
    } catch (error) {
      if (error instanceof ProblemError) return { error };
      throw error;
    }
  });
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

async function signInWithin(tx: FxExecutor, input: { email: string; password: string }, now: Date): Promise<{ account: DeveloperAccount; session: string }> {
  const email = parseField(developerEmailSchema, input.email, 'email');
  const password = parseField(z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters'), input.password, 'password');
  const [account] = await tx.select().from(developerAccounts).where(eq(developerAccounts.email, email)).for('update');
  const lockedMs = (account?.lockedUntilUtc?.getTime() ?? 0) - now.getTime();
  if (lockedMs > 0) throw new AccountLockedError(lockedMs / 1000);
  const { matches } = await checkPassword(password, account?.passwordHash ?? (await UNKNOWN_USER_PASSWORD_HASH));
  if (!account || !matches) {
    if (account) await recordFailure(tx, account, now);
    throw new UnauthenticatedError('The email address or the password is wrong.');
  }
  if (!account.emailVerifiedUtc) throw new ForbiddenError('Confirm your address first: open the link in the mail sent at sign-up.');
  await tx.update(developerAccounts).set({ failedSignIns: 0, failureWindowStartedUtc: null, lockedUntilUtc: null }).where(eq(developerAccounts.id, account.id));
  return { account, session: await issueToken(tx, account.id, 'session', SESSION_DAYS * 24 * HOUR, now) };
}

async function recordFailure(tx: FxExecutor, account: DeveloperAccount, now: Date): Promise<void> {
  // The row is locked FOR UPDATE above, so concurrent wrong guesses are counted one after the other.
  const windowOpen = account.failureWindowStartedUtc && now.getTime() - account.failureWindowStartedUtc.getTime() < DEVELOPER_LOCKOUT.windowSeconds * 1000;
  const failures = windowOpen ? account.failedSignIns + 1 : 1;
  const lock = failures >= DEVELOPER_LOCKOUT.failures;
  await tx
    .update(developerAccounts)
    .set({
      failedSignIns: lock ? 0 : failures,
      failureWindowStartedUtc: lock ? null : windowOpen ? account.failureWindowStartedUtc : now,
      lockedUntilUtc: lock ? new Date(now.getTime() + DEVELOPER_LOCKOUT.lockSeconds * 1000) : null,
    })
    .where(eq(developerAccounts.id, account.id));
}

/** The account of a session cookie, or null when it is unknown or expired. */
export async function accountOfSession(db: FxExecutor, token: string, now: Date): Promise<DeveloperAccount | null> {
  const [row] = await db
    .select({ account: developerAccounts })
    .from(developerTokens)
    .innerJoin(developerAccounts, eq(developerAccounts.id, developerTokens.accountId))
    .where(and(eq(developerTokens.tokenHash, hashToken(token)), eq(developerTokens.purpose, 'session'), gt(developerTokens.expiresUtc, now), isNull(developerTokens.usedUtc)));
  return row?.account ?? null;
}

export async function endSession(db: FxExecutor, token: string): Promise<void> {
  await db.delete(developerTokens).where(and(eq(developerTokens.tokenHash, hashToken(token)), eq(developerTokens.purpose, 'session')));
}
