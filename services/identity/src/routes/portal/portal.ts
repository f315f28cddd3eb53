import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { completePortalSecondStep, describePortalSession, endPortalSession, login, PORTAL_SESSION_SECONDS, signInWithPasskey } from '../../domain/accounts/portal-sessions.js';
import type { RelyingParty } from '../../domain/accounts/second-factors/passkeys.js';
import { passkeySignInRoutes } from '../accounts/passkey-sign-in-routes.js';
import { passwordResetRoutes } from '../accounts/password-reset-routes.js';
import { portalResetAccounts } from '../../domain/accounts/password-reset-accounts.js';
import type { Mailer } from '@svc/mailer';
import type { IdentityMails } from '../../domain/mail/identity-mails.js';
import { replyWithSignIn, secondFactorRequiredSchema, sessionIssuedSchema, signInLanguage, type SignInCookies } from '../accounts/sign-in-reply.js';
import type { SecretBox } from '@svc/service-kit';
import { passkeyAssertionSchema, secondStepBodySchema } from '../accounts/second-factor-schemas.js';
import { parseRegistrationCertificate } from '../../domain/access/certificates.js';
import { emailSchema, PORTAL_ROLES } from '../../domain/tenants/tenants.js';
import { PORTAL_COOKIE, refuseCrossOrigin, requirePrincipal } from '../../plugins/authentication.js';
import { ForbiddenError, problemResponses } from '@svc/problem-json';
import { portalSecurity, RATE_LIMITED } from '../openapi.js';
import type { CredentialCache } from '../../domain/common/credential-cache.js';

export interface PortalRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  cookieSecure: boolean;
  cookiePath: string;
  /** Emptied here at once after a logout (other instances empty theirs on its NOTIFY). */
  credentials: CredentialCache;
  /** Origins besides the request's own host whose browser logins are accepted (PUBLIC_BASE_URL). */
  allowedOrigins: readonly string[];
  /** The service-wide parts of the retention policy shown beside the tenant's own. */
  retention: { undecidedRetentionDays: number; auditRetentionDays: number };
  /** Opens the sealed TOTP secrets. */
  box: SecretBox;
  /** Where passkeys are used (WEBAUTHN_ORIGINS). */
  relyingParty: RelyingParty;
  /** Sends the reset links and notices. */
  mailer: Mailer<IdentityMails>;
}

const PENDING_COOKIE = 'svc_portal_pending';


function portalPrincipal(request: Parameters<typeof requirePrincipal>[0]) {
  const principal = requirePrincipal(request);
  if (principal.kind !== 'portal') throw new ForbiddenError('This is the partner portal\'s own API: it needs a portal session, not an API access token.');
  return principal;
}

export const portalRoutes: FastifyPluginAsync<PortalRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const cookie = { httpOnly: true, secure: options.cookieSecure, sameSite: 'strict' as const, path: options.cookiePath };
  // Sent only to the second step: the pending token opens nothing else.
  const signInCookies: SignInCookies = {
    session: { name: PORTAL_COOKIE, options: cookie, maxAge: PORTAL_SESSION_SECONDS },
    pending: { name: PENDING_COOKIE, options: { ...cookie, path: `${options.cookiePath}/portal/login` } },
  };

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
          200: sessionIssuedSchema,
          202: secondFactorRequiredSchema.describe('The password is right and the account has a second factor: complete the sign-in with POST /portal/login/second-factor'),
          ...problemResponses({
            400: 'VALIDATION_ERROR',
            401: 'UNAUTHENTICATED: wrong email or password (the same answer for both)',
            403: "ACCOUNT_DISABLED: the tenant is disabled; CSRF_REJECTED: a browser's Origin is not this service",
            429: `ACCOUNT_LOCKED: too many failed logins (Retry-After); or ${RATE_LIMITED}`,
          }),
        },
      },
    },
    async (request, reply) => {
      // Login CSRF: another site must not sign a visitor in to an account of its choosing.
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const signIn = await login(
        options.db,
        { email: request.body.email, password: request.body.password, language: signInLanguage(request, options.mailer), correlationId: request.id, userAgent: request.headers['user-agent'], ipAddress: request.ip },
        options.clock(),
      );
      return replyWithSignIn(reply, signIn, signInCookies);
    },
  );

  typed.post(
    '/portal/login/second-factor',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'completePortalSecondFactor',
        summary: 'Second step of a portal sign-in',
        description:
          'After a 202 from POST /portal/login: a code from the authenticator app (`code`) or an unused recovery code (`recoveryCode`), with the pending sign-in token (body, or the HttpOnly cookie set by the login). Wrong codes count toward the same lockout as wrong passwords; each is audited.',
        tags: ['portal'],
        security: [],
        body: secondStepBodySchema,
        response: {
          200: sessionIssuedSchema,
          ...problemResponses({
            400: 'VALIDATION_ERROR; INVALID_CODE: the code is wrong or already used',
            401: 'UNAUTHENTICATED: the pending sign-in is missing, expired or spent (enter the password again)',
            403: 'ACCOUNT_DISABLED; CSRF_REJECTED',
            429: `ACCOUNT_LOCKED (Retry-After); or ${RATE_LIMITED}`,
          }),
        },
      },
    },
    async (request, reply) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const { pendingSignInToken, ...proof } = request.body;
      const session = await completePortalSecondStep(
        options.db,
        options.box,
        { pendingSignInToken: pendingSignInToken ?? request.cookies[PENDING_COOKIE] ?? '', proof: proof, correlationId: request.id, relyingParty: options.relyingParty },
        options.clock(),
      );
      return replyWithSignIn(reply, session, signInCookies);
    },
  );

  await app.register(passwordResetRoutes, {
    accounts: portalResetAccounts,
    path: '/portal',
    document: { tags: ['portal'], operationNoun: 'Portal', loginRoute: 'POST /portal/login', secondStepRoute: 'POST /portal/login/second-factor' },
    db: options.db, clock: options.clock, mailer: options.mailer, credentials: options.credentials, allowedOrigins: options.allowedOrigins, signInCookies });

  await app.register(passkeySignInRoutes, {
    prefix: '/portal/login',
    db: options.db,
    clock: options.clock,
    relyingParty: options.relyingParty,
    pendingCookie: PENDING_COOKIE,
    allowedOrigins: options.allowedOrigins,
    document: { tags: ['portal'], operationPrefix: 'portal' },
  });

  typed.post(
    '/portal/login/passkey',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'logInToPortalWithPasskey',
        summary: 'Log in to the partner portal with a passkey alone',
        description:
          'The browser\'s answer to the options of POST /portal/login/passkey/options (a discoverable passkey, user verification required). No password and no further step: the session as after POST /portal/login. Refusals count toward the owner\'s lockout like wrong passwords.',
        tags: ['portal'],
        security: [],
        body: z.strictObject({ passkey: passkeyAssertionSchema }),
        response: {
          200: sessionIssuedSchema,
          ...problemResponses({
            400: 'VALIDATION_ERROR; PASSKEY_REJECTED: the challenge is spent or expired',
            401: 'UNAUTHENTICATED: the passkey is unknown or its signature, origin or user verification is wrong',
            403: 'ACCOUNT_DISABLED; CSRF_REJECTED',
            429: `ACCOUNT_LOCKED (Retry-After); or ${RATE_LIMITED}`,
          }),
        },
      },
    },
    async (request, reply) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const meta = { correlationId: request.id, userAgent: request.headers['user-agent'], ipAddress: request.ip };
      const session = await signInWithPasskey(options.db, options.relyingParty, request.body.passkey, meta, options.clock());
      return replyWithSignIn(reply, session, signInCookies);
    },
  );

  typed.post(
    '/portal/logout',
    {
      config: { auth: 'portal', allowsEnrolmentOnly: true },
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

  typed.get(
    '/portal/session',
    {
      config: { auth: 'portal', allowsEnrolmentOnly: true },
      schema: {
        operationId: 'getPortalSession',
        summary: 'Who is signed in to the portal',
        description: "The portal user, their tenant (with its sandbox flag) and the session's end. PartnerReadOnly users may read everything and change nothing.",
        tags: ['portal'],
        security: portalSecurity,
        response: {
          200: z.object({
            user: z.object({ id: z.uuid(), email: z.string(), role: z.enum(PORTAL_ROLES) }),
            tenant: z.object({
              id: z.uuid(),
              name: z.string(),
              sandbox: z.boolean(),
              requireSecondFactor: z.boolean().meta({ description: 'Its users must sign in with a second factor' }),
              retention: z
                .object({
                  evidenceRetentionDays: z.number().int().meta({ description: "Days after a case is approved or rejected until its evidence and personal data are redacted (the tenant's setting, default 90)" }),
                  undecidedRetentionDays: z.number().int().meta({ description: 'The same for expired, cancelled and failed cases (UNDECIDED_RETENTION_DAYS)' }),
                  auditRetentionDays: z.number().int().meta({ description: 'Days the audit log is kept (AUDIT_RETENTION_DAYS)' }),
                })
                .meta({ id: 'RetentionPolicy' }),
            }),
            expiresAt: z.iso.datetime({ offset: true }),
            enrolmentOnly: z.boolean().meta({ description: 'The session may only set up a second factor (the tenant requires one)' }),
          }),
          ...problemResponses({ 401: 'UNAUTHENTICATED', 403: 'ACCOUNT_DISABLED, or FORBIDDEN for an API access token' }),
        },
      },
    },
    async (request) => {
      const session = await describePortalSession(options.db, portalPrincipal(request));
      const { evidenceRetentionDays, ...tenant } = session.tenant;
      return {
        ...session,
        user: { ...session.user, role: session.user.role as (typeof PORTAL_ROLES)[number] },
        tenant: { ...tenant, retention: { evidenceRetentionDays, ...options.retention } },
      };
    },
  );

  typed.post(
    '/portal/certificates/inspect',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'inspectClientCertificate',
        summary: 'Read a client certificate before registering it',
        description:
          'The details POST /oauth/clients would extract (SHA-256 thumbprint, subject DN, validity), or the same 400 it would answer. Nothing is stored. Role PartnerAdmin.',
        tags: ['portal'],
        security: portalSecurity,
        body: z.strictObject({ certificatePem: z.string().min(1, 'must not be empty').max(20_000, 'must be at most 20000 characters') }),
        response: {
          200: z.object({
            certificateThumbprint: z.string(),
            certificateSubjectDN: z.string(),
            certificateNotBefore: z.iso.datetime({ offset: true }),
            certificateNotAfter: z.iso.datetime({ offset: true }),
          }),
          ...problemResponses({
            400: 'VALIDATION_ERROR: not one PEM certificate, a private key, expired or not yet valid',
            401: 'UNAUTHENTICATED',
            403: 'FORBIDDEN (not PartnerAdmin), CSRF_REJECTED or ACCOUNT_DISABLED',
            429: RATE_LIMITED,
          }),
        },
      },
    },
    async (request) => {
      const certificate = parseRegistrationCertificate(request.body.certificatePem, options.clock());
      return {
        certificateThumbprint: certificate.thumbprint,
        certificateSubjectDN: certificate.subjectDn,
        certificateNotBefore: certificate.notBefore.toISOString(),
        certificateNotAfter: certificate.notAfter.toISOString(),
      };
    },
  );
};
