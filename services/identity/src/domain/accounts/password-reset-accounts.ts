import { and, eq, isNull } from 'drizzle-orm';
import { loginThrottle, portalSessions, portalUsers, staffSessions, staffUsers, tenants, type IdentityExecutor } from '../../db/schema.js';
import type { ResetRealm } from '../mail/identity-mails.js';
import { issuePortalSession, type PortalSignIn } from './portal-sessions.js';
import { issueStaffSession, staffThrottleKey, type StaffSignIn } from './staff.js';

/** The account a reset link is for, as the audit log names it (`user:<id>`, `staff:<id>`). */
export interface ResetAccount {
  id: string;
  account: string;
  tenantId: string | null;
  email: string;
}

export interface ResetSignInMeta {
  correlationId: string;
  userAgent?: string | undefined;
  ipAddress?: string | undefined;
}

/**
 * What differs between the portal's users and the console's staff in "forgot password": where the
 * account lives, which sessions end, which lockout is cleared and which session a sign-in issues.
 * Everything else (limits, token, link, audit, mails) is the one flow in password-resets.ts.
 */
export interface ResetAccounts {
  realm: ResetRealm;
  /** An account that may sign in, or null (unknown, disabled, or its tenant suspended). */
  findActive(tx: IdentityExecutor, email: string): Promise<ResetAccount | null>;
  /** The account of a link; `active` false when it may no longer sign in. */
  load(tx: IdentityExecutor, account: string): Promise<(ResetAccount & { active: boolean }) | null>;
  /** Sets the password, ends every session of the account and clears its lockout. */
  setPassword(tx: IdentityExecutor, account: ResetAccount, passwordHash: string, now: Date): Promise<void>;
  issueSession(tx: IdentityExecutor, account: ResetAccount, meta: ResetSignInMeta, now: Date): Promise<PortalSignIn | StaffSignIn>;
}

const idOf = (account: string, prefix: string) => (account.startsWith(prefix) ? account.slice(prefix.length) : null);

export const portalResetAccounts: ResetAccounts = {
  realm: 'portal',
  async findActive(tx, email) {
    const [user] = await tx
      .select({ id: portalUsers.id, tenantId: portalUsers.tenantId, email: portalUsers.email })
      .from(portalUsers)
      .innerJoin(tenants, eq(tenants.id, portalUsers.tenantId))
      .where(and(eq(portalUsers.email, email), eq(portalUsers.status, 'active'), eq(tenants.status, 'active')));
    return user ? { ...user, account: `user:${user.id}` } : null;
  },
  async load(tx, account) {
    const id = idOf(account, 'user:');
    if (!id) return null;
    const [user] = await tx
      .select({ id: portalUsers.id, tenantId: portalUsers.tenantId, email: portalUsers.email, status: portalUsers.status, tenantStatus: tenants.status })
      .from(portalUsers)
      .innerJoin(tenants, eq(tenants.id, portalUsers.tenantId))
      .where(eq(portalUsers.id, id));
    return user ? { id: user.id, tenantId: user.tenantId, email: user.email, account, active: user.status === 'active' && user.tenantStatus === 'active' } : null;
  },
  async setPassword(tx, user, passwordHash, now) {
    await tx.update(portalUsers).set({ passwordHash }).where(eq(portalUsers.id, user.id));
    await tx.update(portalSessions).set({ endedAt: now }).where(and(eq(portalSessions.userId, user.id), isNull(portalSessions.endedAt)));
    await tx.delete(loginThrottle).where(eq(loginThrottle.email, user.email));
  },
  async issueSession(tx, user, meta, now) {
    const [tenant] = await tx.select({ requireSecondFactor: tenants.requireSecondFactor }).from(tenants).where(eq(tenants.id, user.tenantId ?? ''));
    return issuePortalSession(tx, { userId: user.id, tenantId: user.tenantId ?? '', enrolmentOnly: tenant?.requireSecondFactor ?? false }, meta, now);
  },
};

/** Staff are not tenant members; STAFF_REQUIRE_SECOND_FACTOR decides whether a session without a factor is enrolment-only. */
export function staffResetAccounts(options: { requireSecondFactor: boolean }): ResetAccounts {
  return {
    realm: 'console',
    async findActive(tx, email) {
      const [staff] = await tx.select({ id: staffUsers.id, email: staffUsers.email }).from(staffUsers).where(eq(staffUsers.email, email));
      return staff ? { ...staff, tenantId: null, account: `staff:${staff.id}` } : null;
    },
    async load(tx, account) {
      const id = idOf(account, 'staff:');
      if (!id) return null;
      const [staff] = await tx.select({ id: staffUsers.id, email: staffUsers.email }).from(staffUsers).where(eq(staffUsers.id, id));
      return staff ? { ...staff, tenantId: null, account, active: true } : null;
    },
    async setPassword(tx, staff, passwordHash, now) {
      await tx.update(staffUsers).set({ passwordHash }).where(eq(staffUsers.id, staff.id));
      await tx.update(staffSessions).set({ endedAt: now }).where(and(eq(staffSessions.staffId, staff.id), isNull(staffSessions.endedAt)));
      await tx.delete(loginThrottle).where(eq(loginThrottle.email, staffThrottleKey(staff.email)));
    },
    issueSession: (tx, staff, meta, now) => issueStaffSession(tx, staff.id, options.requireSecondFactor, meta.correlationId, now),
  };
}
