import { AccountDisabledError, NotFoundError, ProblemError } from '@svc/problem-json';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { portalInvitations, portalUsers, tenants, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { generateOpaqueToken, hashToken } from '@svc/accounts';
import type { PortalPrincipal } from './portal-sessions.js';
import type { PortalRole } from '../tenants/tenants.js';
import { hashPassword } from '@svc/accounts';
import type { IdentityMailer } from '../mail/identity-mailer.js';

export const INVITATION_PREFIX = 'svc_inv_';
export const INVITATION_HOURS = 72;

/** 409: one address is one login across all tenants, so an address already in use cannot be invited. */
export class UserExistsError extends ProblemError {
  constructor(email: string) {
    super({ status: 409, code: 'USER_EXISTS', title: 'User Exists', detail: `${email} already has a portal account (in this or another tenant): one address is one login.` });
  }
}

const INVITATION_PROBLEMS = {
  INVITATION_NOT_FOUND: [404, 'This invitation link is not valid: check that the whole link was copied, or ask for a new invitation.'],
  INVITATION_EXPIRED: [410, `This invitation has expired (invitations are valid for ${INVITATION_HOURS} hours): ask an admin of the tenant for a new one.`],
  INVITATION_USED: [410, 'This invitation has already been accepted: sign in with the password chosen then.'],
  INVITATION_REVOKED: [410, 'This invitation was withdrawn by an admin of the tenant: ask them for a new one if you still need access.'],
} as const;
export type InvitationProblemCode = keyof typeof INVITATION_PROBLEMS;

/** An invitation link that cannot be used (any more): 404 when unknown, 410 Gone when it was valid once. */
export class InvitationUnusableError extends ProblemError {
  constructor(code: InvitationProblemCode) {
    const [status, detail] = INVITATION_PROBLEMS[code];
    super({ status, code, title: status === 404 ? 'Not Found' : 'Invitation Unusable', detail });
  }
}

const pendingOf = (tenantId: string, now: Date) =>
  and(eq(portalInvitations.tenantId, tenantId), isNull(portalInvitations.acceptedAt), isNull(portalInvitations.revokedAt), gt(portalInvitations.expiresAt, now));

/**
 * Creates the invitation and returns its token, which exists only in this answer (stored as its
 * SHA-256). A pending invitation of the same address in this tenant is revoked in the same
 * transaction: only the newest link works. With a mailer the link is also mailed to the invited
 * address, queued in the same transaction (a re-invite mails the new link).
 */
export async function inviteColleague(
  db: IdentityExecutor,
  principal: PortalPrincipal,
  input: { email: string; role: PortalRole; correlationId: string; language?: string | undefined },
  now: Date,
  mailer?: IdentityMailer,
) {
  const token = generateOpaqueToken(INVITATION_PREFIX, 32);
  const expiresAt = new Date(now.getTime() + INVITATION_HOURS * 3600_000);
  return db.transaction(async (tx) => {
    const [existing] = await tx.select({ id: portalUsers.id }).from(portalUsers).where(eq(portalUsers.email, input.email));
    if (existing) throw new UserExistsError(input.email);
    const audit = { tenantId: principal.tenantId, actor: `user:${principal.userId}`, correlationId: input.correlationId };
    const replaced = await tx
      .update(portalInvitations)
      .set({ revokedAt: now })
      .where(and(eq(portalInvitations.tenantId, principal.tenantId), eq(portalInvitations.email, input.email), isNull(portalInvitations.acceptedAt), isNull(portalInvitations.revokedAt)))
      .returning({ id: portalInvitations.id });
    for (const old of replaced) await writeAudit(tx, { ...audit, action: 'invitation.revoked', target: `invitation:${old.id}`, after: { reason: 'replaced by a new invitation' } }, now);
    const [invitation] = await tx
      .insert(portalInvitations)
      .values({ tenantId: principal.tenantId, email: input.email, role: input.role, tokenHash: hashToken(token), invitedBy: principal.userId, createdAt: now, expiresAt })
      .returning({ id: portalInvitations.id, email: portalInvitations.email, role: portalInvitations.role, createdAt: portalInvitations.createdAt, expiresAt: portalInvitations.expiresAt });
    if (!invitation) throw new Error('invitation insert returned no row');
    await writeAudit(tx, { ...audit, action: 'invitation.created', target: `invitation:${invitation.id}`, after: { email: input.email, role: input.role, expiresAt } }, now);
    if (mailer) {
      const [tenant] = await tx.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, principal.tenantId));
      const data = { tenantName: tenant?.name ?? '', role: input.role, token, validHours: INVITATION_HOURS };
      await mailer.enqueue(tx, { to: input.email, language: input.language, template: 'invitation', data, subjectId: invitation.id }, now);
    }
    return { invitation: { ...invitation, invitedBy: principal.userId }, token };
  });
}

/** Invitations neither accepted, revoked nor expired, oldest first. */
export async function listPendingInvitations(db: IdentityExecutor, tenantId: string, now: Date) {
  return db
    .select({ id: portalInvitations.id, email: portalInvitations.email, role: portalInvitations.role, createdAt: portalInvitations.createdAt, expiresAt: portalInvitations.expiresAt, invitedBy: portalInvitations.invitedBy })
    .from(portalInvitations)
    .where(pendingOf(tenantId, now))
    .orderBy(asc(portalInvitations.createdAt), asc(portalInvitations.id));
}

export async function revokeInvitation(db: IdentityExecutor, principal: PortalPrincipal, invitationId: string, correlationId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(portalInvitations)
      .set({ revokedAt: now })
      .where(and(eq(portalInvitations.id, invitationId), pendingOf(principal.tenantId, now)))
      .returning({ id: portalInvitations.id });
    if (!revoked) throw new NotFoundError(`No pending invitation with id ${invitationId} in this tenant.`);
    await writeAudit(tx, { tenantId: principal.tenantId, actor: `user:${principal.userId}`, action: 'invitation.revoked', target: `invitation:${invitationId}`, correlationId }, now);
  });
}

function findByToken(db: IdentityExecutor, token: string) {
  // Looked up by the token's hash: the token itself is never compared, so nothing leaks by timing.
  return db
    .select({
      id: portalInvitations.id,
      tenantId: portalInvitations.tenantId,
      email: portalInvitations.email,
      role: portalInvitations.role,
      expiresAt: portalInvitations.expiresAt,
      acceptedAt: portalInvitations.acceptedAt,
      revokedAt: portalInvitations.revokedAt,
      tenantName: tenants.name,
      tenantStatus: tenants.status,
    })
    .from(portalInvitations)
    .innerJoin(tenants, eq(tenants.id, portalInvitations.tenantId))
    .where(eq(portalInvitations.tokenHash, hashToken(token)));
}

type InvitationRow = Awaited<ReturnType<typeof findByToken>>[number];

function usable(row: InvitationRow | undefined, now: Date): InvitationRow {
  if (!row) throw new InvitationUnusableError('INVITATION_NOT_FOUND');
  if (row.acceptedAt) throw new InvitationUnusableError('INVITATION_USED');
  if (row.revokedAt) throw new InvitationUnusableError('INVITATION_REVOKED');
  if (row.expiresAt.getTime() <= now.getTime()) throw new InvitationUnusableError('INVITATION_EXPIRED');
  if (row.tenantStatus !== 'active') throw new AccountDisabledError('The tenant of this invitation has been disabled.');
  return row;
}

/** What the acceptance page shows before the colleague chooses a password. */
export async function describeInvitation(db: IdentityExecutor, token: string, now: Date) {
  const row = usable((await findByToken(db, token))[0], now);
  return { email: row.email, role: row.role, tenantName: row.tenantName, expiresAt: row.expiresAt };
}

/**
 * Creates the user with the chosen password and uses the invitation up, in one transaction with
 * the invitation's row locked: two tabs accepting at once make one user, the other gets INVITATION_USED.
 */
export async function acceptInvitation(db: IdentityExecutor, input: { token: string; password: string; correlationId: string }, now: Date): Promise<{ email: string; userId: string }> {
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [locked] = await tx.select({ id: portalInvitations.id }).from(portalInvitations).where(eq(portalInvitations.tokenHash, hashToken(input.token))).for('update');
    const row = usable(locked ? (await findByToken(tx, input.token))[0] : undefined, now);
    const [user] = await tx
      .insert(portalUsers)
      .values({ tenantId: row.tenantId, email: row.email, role: row.role, passwordHash, createdAt: now })
      .onConflictDoNothing()
      .returning({ id: portalUsers.id });
    if (!user) throw new UserExistsError(row.email);
    await tx.update(portalInvitations).set({ acceptedAt: now, acceptedUserId: user.id }).where(eq(portalInvitations.id, row.id));
    await writeAudit(tx, { tenantId: row.tenantId, actor: `user:${user.id}`, action: 'invitation.accepted', target: `invitation:${row.id}`, correlationId: input.correlationId, after: { email: row.email, role: row.role } }, now);
    await writeAudit(tx, { tenantId: row.tenantId, actor: `user:${user.id}`, action: 'user.created', target: `user:${user.id}`, correlationId: input.correlationId, after: { email: row.email, role: row.role, via: 'invitation' } }, now);
    return { email: row.email, userId: user.id };
  });
}
