import { NotFoundError } from '@svc/problem-json';
import { and, eq } from 'drizzle-orm';
import { portalSessions, portalUsers, tenants, type IdentityExecutor } from '../../../db/schema.js';
import { announceCredentialsChanged } from '../../common/credential-cache.js';
import { portalFactorAccount, type PortalPrincipal } from '../portal-sessions.js';
import type { FactorAccount } from './accounts.js';
import { refuseRemovingLastFactor } from './factors.js';

/** The signed-in portal user as a factor account (its tenant scopes every factor query). */
export async function portalAccountOf(db: IdentityExecutor, principal: PortalPrincipal): Promise<FactorAccount> {
  const [user] = await db
    .select({ id: portalUsers.id, tenantId: portalUsers.tenantId, email: portalUsers.email })
    .from(portalUsers)
    .where(and(eq(portalUsers.id, principal.userId), eq(portalUsers.tenantId, principal.tenantId)));
  if (!user) throw new NotFoundError('The signed-in user no longer exists.');
  return portalFactorAccount(user);
}

/** With a factor set up, the user's enrolment-only sessions become full ones. */
export async function liftEnrolmentOnly(tx: IdentityExecutor, principal: PortalPrincipal): Promise<void> {
  const lifted = await tx
    .update(portalSessions)
    .set({ enrolmentOnly: false })
    .where(and(eq(portalSessions.userId, principal.userId), eq(portalSessions.tenantId, principal.tenantId), eq(portalSessions.enrolmentOnly, true)))
    .returning({ id: portalSessions.id });
  if (lifted.length > 0) await announceCredentialsChanged(tx);
}

/** While the tenant requires a second factor, the last one cannot go (the user would be locked into enrolment). */
export async function refuseRemovingLastRequiredFactor(db: IdentityExecutor, account: FactorAccount, factorId: string): Promise<void> {
  if (account.tenantId === null) return;
  const [tenant] = await db.select({ requireSecondFactor: tenants.requireSecondFactor }).from(tenants).where(eq(tenants.id, account.tenantId));
  if (tenant?.requireSecondFactor) await refuseRemovingLastFactor(db, account, factorId, 'Your organisation');
}
