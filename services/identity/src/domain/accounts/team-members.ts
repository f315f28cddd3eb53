import { NotFoundError, ProblemError } from '@svc/problem-json';
import { and, asc, eq, isNull, max, sql } from 'drizzle-orm';
import { portalSessions, portalUsers, tenants, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { announceCredentialsChanged } from '../common/credential-cache.js';
import type { PortalPrincipal } from './portal-sessions.js';
import type { PortalRole } from '../tenants/tenants.js';

export type UserStatus = 'active' | 'disabled';

/** 409: the change would leave the tenant without an active PartnerAdmin, and nobody could manage it. */
export class LastAdminError extends ProblemError {
  constructor() {
    super({
      status: 409,
      code: 'LAST_ADMIN',
      title: 'Last Admin',
      detail: 'This is the last active PartnerAdmin of the tenant: make another user an admin before disabling or demoting this one.',
    });
  }
}

/** The tenant's users, admins first then by address, with their last sign-in (the newest session they started). */
export async function listTeamMembers(db: IdentityExecutor, tenantId: string) {
  const lastSignIn = db
    .select({ userId: portalSessions.userId, at: max(portalSessions.createdAt).as('last_sign_in_at') })
    .from(portalSessions)
    .where(eq(portalSessions.tenantId, tenantId))
    .groupBy(portalSessions.userId)
    .as('last_sign_in');
  return db
    .select({ id: portalUsers.id, email: portalUsers.email, role: portalUsers.role, status: portalUsers.status, createdAt: portalUsers.createdAt, lastSignInAt: lastSignIn.at })
    .from(portalUsers)
    .leftJoin(lastSignIn, eq(lastSignIn.userId, portalUsers.id))
    .where(eq(portalUsers.tenantId, tenantId))
    .orderBy(asc(portalUsers.role), asc(portalUsers.email));
}

const isActiveAdmin = (user: { role: string; status: string }) => user.role === 'PartnerAdmin' && user.status === 'active';

/**
 * Changes a colleague's role and/or status. The tenant's row is locked first, so two admins
 * demoting or disabling each other at once are serialised: the second sees the first's change
 * and is refused, and the tenant never ends up with no active admin (PostgreSQL; PGlite has one
 * session and serialises anyway). Disabling ends the user's sessions in the same transaction.
 */
export async function updateTeamMember(
  db: IdentityExecutor,
  principal: PortalPrincipal,
  userId: string,
  change: { role?: PortalRole | undefined; status?: UserStatus | undefined },
  correlationId: string,
  now: Date,
) {
  return db.transaction(async (tx) => {
    await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, principal.tenantId)).for('update');
    const [before] = await tx
      .select({ role: portalUsers.role, status: portalUsers.status })
      .from(portalUsers)
      .where(and(eq(portalUsers.id, userId), eq(portalUsers.tenantId, principal.tenantId)));
    if (!before) throw new NotFoundError(`No user with id ${userId} in this tenant.`);
    const after = { role: change.role ?? before.role, status: change.status ?? before.status };
    if (isActiveAdmin(before) && !isActiveAdmin(after)) {
      const [row] = await tx
        .select({ admins: sql<number>`count(*)::int` })
        .from(portalUsers)
        .where(and(eq(portalUsers.tenantId, principal.tenantId), eq(portalUsers.role, 'PartnerAdmin'), eq(portalUsers.status, 'active')));
      if ((row?.admins ?? 0) <= 1) throw new LastAdminError();
    }
    await tx.update(portalUsers).set(after).where(eq(portalUsers.id, userId));
    const audit = { tenantId: principal.tenantId, actor: `user:${principal.userId}`, target: `user:${userId}`, correlationId };
    if (after.role !== before.role) await writeAudit(tx, { ...audit, action: 'user.role_changed', before: { role: before.role }, after: { role: after.role } }, now);
    let endedSessions = 0;
    if (after.status !== before.status) {
      if (after.status === 'disabled') {
        const ended = await tx
          .update(portalSessions)
          .set({ endedAt: now })
          .where(and(eq(portalSessions.userId, userId), isNull(portalSessions.endedAt)))
          .returning({ id: portalSessions.id });
        endedSessions = ended.length;
      }
      await writeAudit(tx, { ...audit, action: after.status === 'disabled' ? 'user.disabled' : 'user.enabled', before: { status: before.status }, after: { status: after.status, endedSessions } }, now);
    }
    // The role is cached with the session too: announce every change, not only a disable.
    if (after.role !== before.role || after.status !== before.status) await announceCredentialsChanged(tx);
    return { id: userId, role: after.role, status: after.status, endedSessions };
  });
}
