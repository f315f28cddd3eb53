import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponses } from '@svc/problem-json';
import type { IdentityExecutor } from '../../db/schema.js';
import { acceptInvitation, describeInvitation, INVITATION_HOURS, inviteColleague, listPendingInvitations, revokeInvitation } from '../../domain/accounts/invitations.js';
import { newPasswordSchema } from '@svc/accounts';
import { listTeamMembers, updateTeamMember } from '../../domain/accounts/team-members.js';
import { withCredentialsForgotten, type CredentialCache } from '../../domain/common/credential-cache.js';
import { login, PORTAL_SESSION_SECONDS } from '../../domain/accounts/portal-sessions.js';
import { emailSchema, PORTAL_ROLES, type PortalRole } from '../../domain/tenants/tenants.js';
import type { IdentityMailer } from '../../domain/mail/identity-mailer.js';
import { PORTAL_COOKIE, refuseCrossOrigin, requirePortalPrincipal } from '../../plugins/authentication.js';
import { portalSecurity, RATE_LIMITED } from '../openapi.js';
import { sessionIssuedSchema } from '../accounts/sign-in-reply.js';

export interface PortalTeamRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  credentials: CredentialCache;
  /** The public origin the invitation links point at (PUBLIC_BASE_URL, or the embedded default's own address). */
  portalOrigin: string;
  /** Mails each invitation to the invited address. */
  mailer?: IdentityMailer;
  cookieSecure: boolean;
  cookiePath: string;
  /** Origins besides the request's own host whose browser acceptances are accepted (PUBLIC_BASE_URL). */
  allowedOrigins: readonly string[];
}

const datetime = z.iso.datetime({ offset: true });
const roleSchema = z.enum(PORTAL_ROLES, { error: `must be one of ${PORTAL_ROLES.join(', ')}` });
const statusSchema = z.enum(['active', 'disabled'], { error: 'must be active or disabled' });
const uuidParam = z.uuid({ error: 'must be a UUID' });
const tokenSchema = z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

const teamMemberSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role: roleSchema,
    status: statusSchema,
    createdAt: datetime,
    lastSignInAt: datetime.nullable().meta({ description: 'When the user last started a session; null if never' }),
    you: z.boolean().meta({ description: 'The user making this request' }),
  })
  .meta({ id: 'TeamMember' });

const invitationSchema = z
  .object({ id: z.uuid(), email: z.string(), role: roleSchema, createdAt: datetime, expiresAt: datetime, invitedBy: z.uuid() })
  .meta({ id: 'PortalInvitation' });

const adminOnly = '403: FORBIDDEN (not PartnerAdmin, or an API access token), CSRF_REJECTED, ACCOUNT_DISABLED';
const invitationProblems = {
  404: 'INVITATION_NOT_FOUND: no invitation has this token',
  410: 'INVITATION_EXPIRED, INVITATION_USED or INVITATION_REVOKED',
  403: 'ACCOUNT_DISABLED: the tenant is disabled; CSRF_REJECTED',
};

const asRole = (role: string) => role as PortalRole;
const invitationBody = (row: { id: string; email: string; role: string; createdAt: Date; expiresAt: Date; invitedBy: string }) => ({
  ...row,
  role: asRole(row.role),
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
});

/** Team management by a tenant's PartnerAdmin, and the public acceptance of an invitation. */
export const portalTeamRoutes: FastifyPluginAsync<PortalTeamRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const cookie = { httpOnly: true, secure: options.cookieSecure, sameSite: 'strict' as const, path: options.cookiePath };

  typed.get(
    '/portal/team/users',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'listTeamMembers',
        summary: "Your tenant's portal users",
        description: 'Every user of your tenant with role, status and last sign-in, admins first. Role PartnerAdmin.',
        tags: ['portal'],
        security: portalSecurity,
        response: { 200: z.object({ items: z.array(teamMemberSchema) }), ...problemResponses({ 401: 'UNAUTHENTICATED', 403: adminOnly }) },
      },
    },
    async (request) => {
      const principal = requirePortalPrincipal(request);
      const members = await listTeamMembers(options.db, principal.tenantId);
      return {
        items: members.map((member) => ({
          ...member,
          role: asRole(member.role),
          status: member.status as 'active' | 'disabled',
          createdAt: member.createdAt.toISOString(),
          lastSignInAt: member.lastSignInAt ? new Date(member.lastSignInAt).toISOString() : null,
          you: member.id === principal.userId,
        })),
      };
    },
  );

  typed.patch(
    '/portal/team/users/:userId',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'updateTeamMember',
        summary: "Change a user's role or status",
        description:
          'Role PartnerAdmin or PartnerReadOnly; status active or disabled. Disabling ends every session of the user at once. The last active PartnerAdmin of the tenant can be neither demoted nor disabled (409 LAST_ADMIN), yourself included. Role PartnerAdmin.',
        tags: ['portal'],
        security: portalSecurity,
        params: z.strictObject({ userId: uuidParam }),
        body: z.strictObject({ role: roleSchema.optional(), status: statusSchema.optional() }).refine((body) => body.role !== undefined || body.status !== undefined, { message: 'must change role or status' }),
        response: {
          200: z.object({ id: z.uuid(), role: roleSchema, status: statusSchema, endedSessions: z.number().int().meta({ description: 'Sessions ended by disabling the user' }) }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: adminOnly, 404: 'NOT_FOUND: no such user in your tenant', 409: 'LAST_ADMIN: the change would leave the tenant without an active PartnerAdmin' }),
        },
      },
    },
    async (request) => {
      const principal = requirePortalPrincipal(request);
      const updated = await withCredentialsForgotten(options.credentials, () => updateTeamMember(options.db, principal, request.params.userId, request.body, request.id, options.clock()));
      return { ...updated, role: asRole(updated.role), status: updated.status as 'active' | 'disabled' };
    },
  );

  typed.get(
    '/portal/team/invitations',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'listPendingInvitations',
        summary: 'Pending invitations',
        description: 'Invitations of your tenant neither accepted, revoked nor expired, oldest first. Role PartnerAdmin.',
        tags: ['portal'],
        security: portalSecurity,
        response: { 200: z.object({ items: z.array(invitationSchema) }), ...problemResponses({ 401: 'UNAUTHENTICATED', 403: adminOnly }) },
      },
    },
    async (request) => {
      const invitations = await listPendingInvitations(options.db, requirePortalPrincipal(request).tenantId, options.clock());
      return { items: invitations.map(invitationBody) };
    },
  );

  typed.post(
    '/portal/team/invitations',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'inviteColleague',
        summary: 'Invite a colleague',
        description: `Answers a one-time invitation link, valid ${INVITATION_HOURS} hours, shown only in this answer (and mailed to the invited address, in the language of the request's Accept-Language). The token is in the link's fragment, so it never reaches a server log. Inviting an address again replaces its pending invitation. Role PartnerAdmin.`,
        tags: ['portal'],
        security: portalSecurity,
        body: z.strictObject({ email: emailSchema, role: roleSchema }),
        response: {
          201: z.object({ invitation: invitationSchema, invitationUrl: z.string().meta({ description: '<public origin>/portal/invitations#<token>' }) }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: adminOnly, 409: 'USER_EXISTS: the address already has a portal user (of any tenant)', 429: RATE_LIMITED }),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePortalPrincipal(request);
      const { invitation, token } = await inviteColleague(options.db, principal, { ...request.body, correlationId: request.id, language: request.headers['accept-language'] }, options.clock(), options.mailer);
      void reply.code(201);
      return { invitation: invitationBody(invitation), invitationUrl: `${options.portalOrigin}/portal/invitations#${token}` };
    },
  );

  typed.delete(
    '/portal/team/invitations/:invitationId',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'revokeInvitation',
        summary: 'Withdraw a pending invitation',
        description: 'Its link stops working at once. Role PartnerAdmin.',
        tags: ['portal'],
        security: portalSecurity,
        params: z.strictObject({ invitationId: uuidParam }),
        response: { 204: z.null().describe('Revoked'), ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: adminOnly, 404: 'NOT_FOUND: no pending invitation with this id in your tenant' }) },
      },
    },
    async (request, reply) => {
      await revokeInvitation(options.db, requirePortalPrincipal(request), request.params.invitationId, request.id, options.clock());
      return reply.code(204).send(null);
    },
  );

  typed.post(
    '/portal/invitations/lookup',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'describeInvitation',
        summary: 'What an invitation is for',
        description: 'The tenant, role and address of a usable invitation, for the acceptance page. The token travels in the body, never in a URL.',
        tags: ['portal'],
        security: [],
        body: z.strictObject({ token: tokenSchema }),
        response: {
          200: z.object({ email: z.string(), role: roleSchema, tenantName: z.string(), expiresAt: datetime }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', ...invitationProblems, 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => {
      const invitation = await describeInvitation(options.db, request.body.token, options.clock());
      return { ...invitation, role: asRole(invitation.role), expiresAt: invitation.expiresAt.toISOString() };
    },
  );

  typed.post(
    '/portal/invitations/accept',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation',
        description:
          'Creates the portal user with the chosen password (at least 12 characters, not a common password), uses the invitation up, and signs the new user in: the answer is that of POST /portal/login, cookie included.',
        tags: ['portal'],
        security: [],
        body: z.strictObject({ token: tokenSchema, password: newPasswordSchema }),
        response: {
          200: sessionIssuedSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR: the password is too short, too long or too common', ...invitationProblems, 409: 'USER_EXISTS: the address got a portal user meanwhile', 429: RATE_LIMITED }),
        },
      },
    },
    async (request, reply) => {
      // As for login: another site must not make a visitor accept an invitation of its choosing.
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const now = options.clock();
      const { email } = await acceptInvitation(options.db, { token: request.body.token, password: request.body.password, correlationId: request.id }, now);
      const signIn = await login(options.db, { email, password: request.body.password, correlationId: request.id, userAgent: request.headers['user-agent'], ipAddress: request.ip }, now);
      // A colleague who has only now chosen a password has no second factor: this is a session,
      // enrolment-only when the tenant requires a factor, so the page sends them to set one up.
      if (signIn.kind !== 'session') throw new Error('a new portal user cannot owe a second factor');
      void reply.setCookie(PORTAL_COOKIE, signIn.sessionToken, { ...cookie, maxAge: PORTAL_SESSION_SECONDS });
      return { sessionToken: signIn.sessionToken, expiresAt: signIn.expiresAt.toISOString(), enrolmentOnly: signIn.enrolmentOnly };
    },
  );
};
