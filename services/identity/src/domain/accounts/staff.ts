import { AccountLockedError, ConflictError, UnauthenticatedError, ValidationError } from '@svc/problem-json';
import { and, eq, isNull } from 'drizzle-orm';
import { loginThrottle, staffSessions, staffUsers, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { generateOpaqueToken, hashToken } from '@svc/accounts';
import { checkPassword, hashPassword, newPasswordSchema, UNKNOWN_USER_PASSWORD_HASH } from '@svc/accounts';
import { LOCKOUT, lockedForSeconds, recordFailure } from './login-throttle.js';
import { emailSchema } from '../tenants/tenants.js';
import type { SecretBox } from '@svc/service-kit';
import type { FactorAccount } from './second-factors/accounts.js';
import { hasSecondFactor, type SecondStepProof } from './second-factors/factors.js';
import { passkeyOwner, verifyPasskeyAssertion, type RelyingParty } from './second-factors/passkeys.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { completeSecondStep, createPendingSignIn } from './second-factors/staged-sign-in.js';

export const STAFF_SESSION_PREFIX = 'svc_ss_';
export const STAFF_SESSION_SECONDS = 8 * 3600;
/** Reviewer decides cases; ReviewLead also reads everyone's history and releases anyone's claim. */
export const STAFF_ROLES = ['Reviewer', 'ReviewLead'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];
/** A console left alone this long signs out, whatever remains of the 8 hours. */
export const STAFF_IDLE_SECONDS = 30 * 60;
/** lastSeenAt is written at most this often: one write a minute per session, not one per request. */
const LAST_SEEN_WRITE_SECONDS = 60;

export interface StaffPrincipal {
  staffId: string;
  email: string;
  role: StaffRole;
  sessionId: string;
  expiresAt: Date;
  /** Signed in without the second factor staff must have: only enrolment routes accept it. */
  enrolmentOnly: boolean;
  /** The last password or second factor given in this session (sign-in or re-authentication). */
  authenticatedAt: Date;
}

/** Staff and portal logins share the throttle table; the prefix keeps an address's two counts apart. */
export const staffThrottleKey = (email: string) => `staff:${email}`;
const throttleKey = staffThrottleKey;
const INVALID_LOGIN = 'The email or password is incorrect.';

export async function createStaffUser(tx: IdentityExecutor, input: { email: string; password: string; role?: string | undefined }, now: Date): Promise<{ staffId: string; role: StaffRole }> {
  const role = (input.role ?? 'Reviewer') as StaffRole;
  if (!STAFF_ROLES.includes(role)) throw new ValidationError(`--role must be one of ${STAFF_ROLES.join(', ')}`);
  const email = emailSchema.safeParse(input.email);
  if (!email.success) throw new ValidationError(`--email ${email.error.issues[0]?.message ?? 'is invalid'}`);
  const password = newPasswordSchema.safeParse(input.password);
  if (!password.success) throw new ValidationError(`--password ${password.error.issues[0]?.message ?? 'is invalid'}`);
  const [user] = await tx
    .insert(staffUsers)
    .values({ email: email.data, role, passwordHash: await hashPassword(password.data), createdAt: now })
    .onConflictDoNothing()
    .returning({ id: staffUsers.id });
  if (!user) throw new ConflictError(`A staff user with email ${email.data} already exists.`);
  await writeAudit(tx, { tenantId: null, actor: 'cli', action: 'staff.created', target: `staff:${user.id}`, after: { email: email.data, role } }, now);
  return { staffId: user.id, role };
}

export type StaffSignIn = { kind: 'session'; sessionToken: string; expiresAt: Date; enrolmentOnly: boolean } | { kind: 'second-factor'; pendingSignInToken: string; expiresAt: Date };

export const staffFactorAccount = (staff: { id: string; email: string }): FactorAccount => ({ account: `staff:${staff.id}`, tenantId: null, throttleKey: throttleKey(staff.email), email: staff.email });

/**
 * The portal's login rules for staff: one Argon2id whatever the address, lockout by address, old
 * hashes upgraded, a second step when the reviewer has a factor, and an enrolment-only session
 * when the operator requires one (STAFF_REQUIRE_SECOND_FACTOR) that the reviewer has not set up.
 */
export async function staffLogin(
  db: IdentityExecutor,
  input: { email: string; password: string; correlationId: string; requireSecondFactor: boolean; language?: string | undefined },
  now: Date,
): Promise<StaffSignIn> {
  const key = throttleKey(input.email);
  const locked = await lockedForSeconds(db, key, now);
  if (locked > 0) throw new AccountLockedError(locked);
  const [user] = await db.select().from(staffUsers).where(eq(staffUsers.email, input.email));
  const { matches: passwordMatches, upgrade } = await checkPassword(input.password, user?.passwordHash ?? (await UNKNOWN_USER_PASSWORD_HASH));
  const audit = { tenantId: null, actor: user ? `staff:${user.id}` : 'anonymous', target: `email:${input.email}`, correlationId: input.correlationId };
  if (!user || !passwordMatches) {
    const nowLocked = await db.transaction(async (tx) => {
      const justLocked = await recordFailure(tx, key, now);
      await writeAudit(tx, { ...audit, action: 'staff_login.failed' }, now);
      return justLocked;
    });
    throw new UnauthenticatedError(nowLocked ? `${INVALID_LOGIN} Too many failed attempts: the account is now locked for ${LOCKOUT.lockSeconds / 60} minutes.` : INVALID_LOGIN);
  }
  // As on the portal: an older hash is replaced, and the console's language kept for the reviewer's mails.
  if (upgrade || input.language) {
    await db
      .update(staffUsers)
      .set({ ...(upgrade ? { passwordHash: await hashPassword(input.password) } : {}), ...(input.language ? { preferredLanguage: input.language } : {}) })
      .where(eq(staffUsers.id, user.id));
  }
  const account = `staff:${user.id}`;
  if (await hasSecondFactor(db, account)) {
    return db.transaction(async (tx) => {
      const pending = await createPendingSignIn(tx, { account, tenantId: null }, now);
      await writeAudit(tx, { ...audit, action: 'staff_login.second_factor_required' }, now);
      return { kind: 'second-factor' as const, ...pending };
    });
  }
  return db.transaction(async (tx) => {
    await tx.delete(loginThrottle).where(eq(loginThrottle.email, key));
    return issueStaffSession(tx, user.id, input.requireSecondFactor, input.correlationId, now);
  });
}

export async function issueStaffSession(tx: IdentityExecutor, staffId: string, enrolmentOnly: boolean, correlationId: string, now: Date): Promise<StaffSignIn & { kind: 'session' }> {
  const sessionToken = generateOpaqueToken(STAFF_SESSION_PREFIX, 32);
  const expiresAt = new Date(now.getTime() + STAFF_SESSION_SECONDS * 1000);
  await tx.insert(staffSessions).values({ tokenHash: hashToken(sessionToken), staffId, createdAt: now, expiresAt, lastSeenAt: now, authenticatedAt: now, enrolmentOnly });
  await writeAudit(tx, { tenantId: null, actor: `staff:${staffId}`, action: 'staff_login.succeeded', target: `staff:${staffId}`, correlationId, after: enrolmentOnly ? { enrolmentOnly } : null }, now);
  return { kind: 'session', sessionToken, expiresAt, enrolmentOnly };
}

/** The console's second step: a TOTP or recovery code in exchange for the pending token. */
export async function completeStaffSecondStep(db: IdentityExecutor, box: SecretBox, input: { pendingSignInToken: string; proof: SecondStepProof; correlationId: string; relyingParty: RelyingParty }, now: Date) {
  const staffOf = async (executor: IdentityExecutor, account: string) => {
    const [staff] = await executor.select({ id: staffUsers.id, email: staffUsers.email }).from(staffUsers).where(eq(staffUsers.id, account.slice('staff:'.length)));
    if (!staff) throw new UnauthenticatedError('The sign-in has expired or was already completed: enter your password again.');
    return staff;
  };
  return completeSecondStep(db, box, input, now, async (pending) => staffFactorAccount(await staffOf(db, pending.account)), async (tx, pending) => {
    const staff = await staffOf(tx, pending.account);
    return issueStaffSession(tx, staff.id, false, input.correlationId, now);
  });
}

/** A reviewer's passkey alone (user verified): a full session; refusals count toward the reviewer's lockout. */
export async function staffSignInWithPasskey(db: IdentityExecutor, relyingParty: RelyingParty, response: AuthenticationResponseJSON, correlationId: string, now: Date) {
  const owner = await passkeyOwner(db, response.id);
  const [staff] = owner?.startsWith('staff:') ? await db.select({ id: staffUsers.id, email: staffUsers.email }).from(staffUsers).where(eq(staffUsers.id, owner.slice('staff:'.length))) : [];
  if (staff) {
    const locked = await lockedForSeconds(db, throttleKey(staff.email), now);
    if (locked > 0) throw new AccountLockedError(locked);
  }
  const verified = await verifyPasskeyAssertion(db, relyingParty, response, { account: null, pendingSignInId: null }, now);
  if (!staff || verified !== owner) {
    if (staff) {
      await db.transaction(async (tx) => {
        await recordFailure(tx, throttleKey(staff.email), now);
        await writeAudit(tx, { tenantId: null, actor: `staff:${staff.id}`, target: `email:${staff.email}`, correlationId, action: 'staff_login.failed', after: { method: 'passkey' } }, now);
      });
    }
    throw new UnauthenticatedError('The passkey was not accepted: sign in with your password, or try another passkey.');
  }
  return db.transaction(async (tx) => {
    await tx.delete(loginThrottle).where(eq(loginThrottle.email, throttleKey(staff.email)));
    return issueStaffSession(tx, staff.id, false, correlationId, now);
  });
}

/** With a factor set up, the reviewer's enrolment-only sessions become full ones. */
export async function liftStaffEnrolmentOnly(db: IdentityExecutor, staffId: string): Promise<void> {
  await db.update(staffSessions).set({ enrolmentOnly: false }).where(and(eq(staffSessions.staffId, staffId), eq(staffSessions.enrolmentOnly, true)));
}

export async function authenticateStaffSession(db: IdentityExecutor, sessionToken: string | null, now: Date): Promise<StaffPrincipal> {
  const refused = new UnauthenticatedError('A staff session is required: log in with POST /api/internal/v1/login and send Authorization: Bearer svc_ss_… (or the console cookie).');
  if (!sessionToken?.startsWith(STAFF_SESSION_PREFIX)) throw refused;
  const [row] = await db
    .select({ sessionId: staffSessions.id, staffId: staffUsers.id, email: staffUsers.email, role: staffUsers.role, expiresAt: staffSessions.expiresAt, lastSeenAt: staffSessions.lastSeenAt, enrolmentOnly: staffSessions.enrolmentOnly, authenticatedAt: staffSessions.authenticatedAt })
    .from(staffSessions)
    .innerJoin(staffUsers, eq(staffUsers.id, staffSessions.staffId))
    .where(and(eq(staffSessions.tokenHash, hashToken(sessionToken)), isNull(staffSessions.endedAt)));
  if (!row || row.expiresAt.getTime() <= now.getTime()) throw refused;
  // Sessions from before inactivity was tracked count from now on.
  const lastSeen = row.lastSeenAt ?? now;
  if (now.getTime() - lastSeen.getTime() >= STAFF_IDLE_SECONDS * 1000) {
    await db.update(staffSessions).set({ endedAt: now }).where(eq(staffSessions.id, row.sessionId));
    throw new UnauthenticatedError('The staff session ended after 30 minutes without activity: sign in again.');
  }
  if (row.lastSeenAt === null || now.getTime() - lastSeen.getTime() >= LAST_SEEN_WRITE_SECONDS * 1000) {
    await db.update(staffSessions).set({ lastSeenAt: now }).where(eq(staffSessions.id, row.sessionId));
  }
  return { staffId: row.staffId, email: row.email, role: row.role as StaffRole, sessionId: row.sessionId, expiresAt: row.expiresAt, enrolmentOnly: row.enrolmentOnly, authenticatedAt: row.authenticatedAt };
}

export async function endStaffSession(db: IdentityExecutor, principal: StaffPrincipal, correlationId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(staffSessions).set({ endedAt: now }).where(and(eq(staffSessions.id, principal.sessionId), isNull(staffSessions.endedAt)));
    await writeAudit(tx, { tenantId: null, actor: `staff:${principal.staffId}`, action: 'staff_logout', target: `session:${principal.sessionId}`, correlationId }, now);
  });
}
