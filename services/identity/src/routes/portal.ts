import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../db/schema.js';
import { endPortalSession, login, PORTAL_SESSION_SECONDS } from '../domain/portal-sessions.js';
import { emailSchema } from '../domain/tenants.js';
import { PORTAL_COOKIE, requirePrincipal } from '../plugins/authentication.js';
import { problemResponses } from '@svc/problem-json';
import { portalSecurity, RATE_LIMITED } from './openapi.js';
import type { CredentialCache } from '../domain/credential-cache.js';

export interface PortalRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  cookieSecure: boolean;
  cookiePath: string;
  /** Emptied here at once after a logout (other instances empty theirs on its NOTIFY). */
  credentials: CredentialCache;
}

export const portalRoutes: FastifyPluginAsync<PortalRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const cookie = { httpOnly: true, secure: options.cookieSecure, sameSite: 'strict' as const, path: options.cookiePath };

  typed.post(
    '/portal/login',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'logInToPortal',
        summary: 'Log in to the partner portal',
        description:
          'Returns a portal session token (svc_ps_…, 8 hours) and sets it as an HttpOnly, Secure, SameSite=Strict cookie. Portal routes accept the cookie or `Authorization: Bearer svc_ps_…`. Five failed logins for an address within 15 minutes lock it for 15 minutes.',
        tags: ['portal'],
        // The credentials are the body's email and password: nothing to present before logging in.
        security: [],
        body: z.strictObject({ email: emailSchema, password: z.string().min(1).max(256) }),
        response: {
          200: z.object({ sessionToken: z.string(), expiresAt: z.iso.datetime({ offset: true }) }),
          ...problemResponses({
            400: 'VALIDATION_ERROR',
            401: 'UNAUTHENTICATED: wrong email or password (the same answer for both)',
            403: 'ACCOUNT_DISABLED: the tenant is disabled',
            429: `ACCOUNT_LOCKED: too many failed logins (Retry-After); or ${RATE_LIMITED}`,
          }),
        },
      },
    },
    async (request, reply) => {
      const session = await login(options.db, { email: request.body.email, password: request.body.password, correlationId: request.id }, options.clock());
      void reply.header('Cache-Control', 'no-store').setCookie(PORTAL_COOKIE, session.sessionToken, { ...cookie, maxAge: PORTAL_SESSION_SECONDS });
      return { sessionToken: session.sessionToken, expiresAt: session.expiresAt.toISOString() };
    },
  );

  typed.post(
    '/portal/logout',
    {
      config: { auth: 'portal' },
      schema: {
        operationId: 'logOutOfPortal',
        summary: 'End the portal session',
        tags: ['portal'],
        security: portalSecurity,
        response: { 204: z.null().describe('Session ended; the cookie is cleared'), ...problemResponses({ 401: 'UNAUTHENTICATED', 403: 'ACCOUNT_DISABLED' }) },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      if (principal.kind === 'portal') {
        const seen = options.credentials.changesSeen;
        await endPortalSession(options.db, principal, request.id, options.clock());
        options.credentials.clear();
        await options.credentials.announcementSeen(seen);
      }
      return reply.clearCookie(PORTAL_COOKIE, cookie).code(204).send(null);
    },
  );
};
