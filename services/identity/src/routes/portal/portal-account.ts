import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { IdentityMailer } from '../../domain/mail/identity-mailer.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ForbiddenError, problemResponses } from '@svc/problem-json';
import type { IdentityExecutor } from '../../db/schema.js';
import { changePassword, endAllSessionsOfUser, endOwnSession, listOwnSessions } from '../../domain/accounts/portal-account.js';
import { newPasswordSchema } from '@svc/accounts';
import type { CredentialCache } from '../../domain/common/credential-cache.js';
import { requirePrincipal } from '../../plugins/authentication.js';
import { portalSecurity, RATE_LIMITED } from '../openapi.js';

export interface PortalAccountRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  credentials: CredentialCache;
  /** Mails the "your password was changed" notice. */
  mailer?: IdentityMailer;
}

function portalPrincipal(request: FastifyRequest) {
  const principal = requirePrincipal(request);
  if (principal.kind !== 'portal') throw new ForbiddenError("This is the partner portal's own API: it needs a portal session, not an API access token.");
  return principal;
}

const sessionSchema = z
  .object({
    id: z.uuid(),
    createdAt: z.iso.datetime({ offset: true }),
    lastSeenAt: z.iso.datetime({ offset: true }).nullable().meta({ description: 'The last request of the session, to the minute' }),
    expiresAt: z.iso.datetime({ offset: true }),
    userAgent: z.string().nullable(),
    ipAddress: z.string().nullable(),
    current: z.boolean().meta({ description: 'The session making this request' }),
  })
  .meta({ id: 'PortalSession' });

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** Password change and the user's own sessions; an admin ending all sessions of a colleague. */
export const portalAccountRoutes: FastifyPluginAsync<PortalAccountRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  /** Empties this instance's cache at once (others empty theirs on the NOTIFY) so an ended session is refused on its next request. */
  async function afterSessionsEnded<T>(change: () => Promise<T>): Promise<T> {
    const seen = options.credentials.changesSeen;
    const result = await change();
    options.credentials.clear();
    await options.credentials.announcementSeen(seen);
    return result;
  }

  typed.post(
    '/portal/account/password',
    {
      config: { auth: 'portal', freshAuthentication: true },
      schema: {
        operationId: 'changePortalPassword',
        summary: 'Change your password',
        description:
          'Needs the current password, and the password or a second factor given in the last 5 minutes; the new one must have at least 12 characters and not be a common password. Every other session of the user ends. Wrong current passwords count toward the sign-in lockout.',
        tags: ['portal'],
        security: portalSecurity,
        body: z.strictObject({ currentPassword: z.string().min(1).max(256), newPassword: newPasswordSchema }),
        response: {
          200: z.object({ endedSessions: z.number().int().meta({ description: 'Other sessions of yours that were ended' }) }),
          ...problemResponses({
            400: 'VALIDATION_ERROR: the new password is too short, too long or too common',
            401: 'UNAUTHENTICATED',
            403: 'WRONG_PASSWORD: the current password is incorrect; REAUTHENTICATION_REQUIRED: no password or second factor in the last 5 minutes; CSRF_REJECTED; ACCOUNT_DISABLED',
            429: `ACCOUNT_LOCKED (Retry-After); or ${RATE_LIMITED}`,
          }),
        },
      },
    },
    async (request) => {
      const principal = portalPrincipal(request);
      const body = { ...request.body, correlationId: request.id, language: request.headers['accept-language'] };
      return afterSessionsEnded(() => changePassword(options.db, principal, body, options.clock(), options.mailer));
    },
  );

  typed.get(
    '/portal/account/sessions',
    {
      config: { auth: 'portal' },
      schema: {
        operationId: 'listOwnPortalSessions',
        summary: 'Your active sessions',
        description: 'Every session of the signed-in user that has not ended or expired, newest first: when it began, its last request, browser and address.',
        tags: ['portal'],
        security: portalSecurity,
        response: { 200: z.object({ items: z.array(sessionSchema) }), ...problemResponses({ 401: 'UNAUTHENTICATED', 403: 'ACCOUNT_DISABLED, or FORBIDDEN for an API access token' }) },
      },
    },
    async (request) => {
      const sessions = await listOwnSessions(options.db, portalPrincipal(request), options.clock());
      return {
        items: sessions.map((session) => ({ ...session, createdAt: session.createdAt.toISOString(), expiresAt: session.expiresAt.toISOString(), lastSeenAt: iso(session.lastSeenAt) })),
      };
    },
  );

  typed.delete(
    '/portal/account/sessions/:sessionId',
    {
      config: { auth: 'portal' },
      schema: {
        operationId: 'endOwnPortalSession',
        summary: 'End one of your sessions',
        description: 'The browser holding it is signed out at its next request. Ending the current session is a sign-out.',
        tags: ['portal'],
        security: portalSecurity,
        params: z.strictObject({ sessionId: z.uuid({ error: 'must be a UUID' }) }),
        response: {
          204: z.null().describe('Ended'),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED, ACCOUNT_DISABLED', 404: 'NOT_FOUND: no active session of yours with this id' }),
        },
      },
    },
    async (request, reply) => {
      const principal = portalPrincipal(request);
      await afterSessionsEnded(() => endOwnSession(options.db, principal, request.params.sessionId, request.id, options.clock()));
      return reply.code(204).send(null);
    },
  );

  typed.delete(
    '/portal/users/:userId/sessions',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'endAllSessionsOfPortalUser',
        summary: "End all of a user's sessions",
        description: 'Signs a user of your tenant out everywhere (for a lost laptop). Role PartnerAdmin.',
        tags: ['portal'],
        security: portalSecurity,
        params: z.strictObject({ userId: z.uuid({ error: 'must be a UUID' }) }),
        response: {
          200: z.object({ endedSessions: z.number().int() }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN (not PartnerAdmin), CSRF_REJECTED, ACCOUNT_DISABLED', 404: 'NOT_FOUND: no such user in your tenant' }),
        },
      },
    },
    async (request) => {
      const principal = portalPrincipal(request);
      return afterSessionsEnded(() => endAllSessionsOfUser(options.db, principal, request.params.userId, request.id, options.clock()));
    },
  );
};
