import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import type { EvidenceVault } from '../../domain/evidence/evidence-vault.js';
import {
  authenticateStaffSession,
  completeStaffSecondStep,
  staffSignInWithPasskey,
  endStaffSession,
  liftStaffEnrolmentOnly,
  STAFF_IDLE_SECONDS,
  STAFF_ROLES,
  STAFF_SESSION_PREFIX,
  STAFF_SESSION_SECONDS,
  staffFactorAccount,
  staffLogin,
} from '../../domain/accounts/staff.js';
import type { SecretBox } from '@svc/service-kit';
import { refuseRemovingLastFactor } from '../../domain/accounts/second-factors/factors.js';
import { replyWithSignIn, secondFactorRequiredSchema, sessionIssuedSchema, signInLanguage, type SignInCookies } from '../accounts/sign-in-reply.js';
import { secondFactorRoutes } from '../accounts/second-factor-routes.js';
import { reauthenticationRoutes } from '../accounts/reauthentication-routes.js';
import { accountLanguageRoutes } from '../accounts/account-language-routes.js';
import { passkeySignInRoutes } from '../accounts/passkey-sign-in-routes.js';
import type { RelyingParty } from '../../domain/accounts/second-factors/passkeys.js';
import type { SecondStepProof } from '../../domain/accounts/second-factors/factors.js';
import { passkeyAssertionSchema, secondStepBodySchema } from '../accounts/second-factor-schemas.js';
import { emailSchema } from '../../domain/tenants/tenants.js';
import { requireFreshAuthentication } from '../../domain/accounts/reauthentication.js';
import { bearerCredential, refuseCrossOrigin, SecondFactorEnrolmentRequiredError } from '../../plugins/authentication.js';
import { internalCaseRoutes } from './internal-cases.js';
import { requireStaff } from './staff-request.js';
import { RATE_LIMITED, staffSecurity } from '../openapi.js';
import type { Mailer } from '@svc/mailer';
import type { IdentityMails } from '../../domain/mail/identity-mails.js';
import type { CredentialCache } from '../../domain/common/credential-cache.js';
import { staffResetAccounts } from '../../domain/accounts/password-reset-accounts.js';
import { passwordResetRoutes } from '../accounts/password-reset-routes.js';

export const INTERNAL_BASE_PATH = '/api/internal/v1';
/** The console's session cookie: sent only to the internal API, never to the partner routes. */
export const CONSOLE_COOKIE = 'svc_console_session';

export interface InternalReviewRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  storage: EvidenceVault;
  /** Makes the stills of liveness videos. */
  ffmpegPath: string;
  cookieSecure: boolean;
  /** Origins besides the request's own host whose cookie-authenticated writes are accepted (PUBLIC_BASE_URL). */
  allowedOrigins: readonly string[];
  /** Opens the sealed TOTP secrets. */
  box: SecretBox;
  /** STAFF_REQUIRE_SECOND_FACTOR: a reviewer without a factor gets a session that may only set one up. */
  requireSecondFactor: boolean;
  /** Where passkeys are used (WEBAUTHN_ORIGINS). */
  relyingParty: RelyingParty;
  /** Mails the console's password reset links and notices. */
  mailer: Mailer<IdentityMails>;
  /** Ended sessions stop working on this instance before a password reset answers. */
  credentials: CredentialCache;
  /** Builds the staff OpenAPI document (registerStaffOpenApi), served at /openapi.json to staff. */
  openApiDocument: () => unknown;
}

const CONSOLE_PENDING_COOKIE = 'svc_console_pending';
const staffRoleSchema = z.enum(STAFF_ROLES).meta({ id: 'StaffRole', description: "Reviewer decides cases; ReviewLead also sees everyone's history and can release anyone's claim" });
const staffSessionSchema = z
  .object({
    staff: z.object({ id: z.uuid(), email: z.string(), role: staffRoleSchema }),
    expiresAt: z.string(),
    idleTimeoutSeconds: z.number().int(),
    enrolmentOnly: z.boolean().meta({ description: 'Staff must have a second factor and this operator has none yet: only enrolment is open' }),
  })
  .meta({ id: 'StaffSession' });
const signInProblems = problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED', 429: `ACCOUNT_LOCKED (Retry-After); or ${RATE_LIMITED}` });

const SAFE_METHODS = new Set(['GET', 'HEAD']);
/** The routes of an operator who is not signed in: signing in, and forgetting the password. */
const SIGNED_OUT_PATHS = ['/login', '/password-reset'];

/**
 * The operators' manual review, apart from the partner API: its own base path, its own staff
 * sessions (svc_ss_), left out of the partner OpenAPI document. A partner token or portal
 * session is simply not a staff session, so it gets a 401 here. The console sends the session
 * as a cookie; a write it authorises must come from this service's own pages (CSRF), as in the portal.
 */
export const internalReviewRoutes: FastifyPluginAsync<InternalReviewRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  const cookie = { httpOnly: true, secure: options.cookieSecure, sameSite: 'strict' as const, path: INTERNAL_BASE_PATH };
  const signInCookies: SignInCookies = {
    session: { name: CONSOLE_COOKIE, options: cookie, maxAge: STAFF_SESSION_SECONDS },
    pending: { name: CONSOLE_PENDING_COOKIE, options: { ...cookie, path: `${INTERNAL_BASE_PATH}/login` } },
  };
  app.decorateRequest('staff', null);
  app.addHook('onRequest', async (request) => {
    if (SIGNED_OUT_PATHS.some((path) => request.routeOptions.url?.startsWith(`${INTERNAL_BASE_PATH}${path}`))) return;
    const bearer = bearerCredential(request);
    const fromCookie = bearer?.startsWith(STAFF_SESSION_PREFIX) ? null : (request.cookies[CONSOLE_COOKIE] ?? null);
    if (fromCookie && !SAFE_METHODS.has(request.method)) refuseCrossOrigin(request, options.allowedOrigins);
    request.staff = await authenticateStaffSession(db, fromCookie ?? bearer, clock());
    if (request.staff.enrolmentOnly && request.routeOptions.config.allowsEnrolmentOnly !== true) throw new SecondFactorEnrolmentRequiredError();
    if (request.routeOptions.config.freshAuthentication === true) requireFreshAuthentication(request.staff.authenticatedAt, clock());
  });

  typed.post(
    '/login',
    {
      schema: {
        operationId: 'logInStaff',
        summary: 'Sign an operator in to the console',
        description: `Returns a staff session token (svc_ss_…) and sets it as the HttpOnly cookie ${CONSOLE_COOKIE}, sent only to this API. With a second factor set up the answer is 202: finish with POST /login/second-factor or a passkey.`,
        tags: ['staff-session'],
        security: [],
        body: z.strictObject({ email: emailSchema, password: z.string().min(1).max(256) }),
        response: {
          200: sessionIssuedSchema,
          202: secondFactorRequiredSchema.describe('The password is right and the operator has a second factor: complete the sign-in with POST /login/second-factor'),
          ...signInProblems,
        },
      },
    },
    async (request, reply) => {
      // Login CSRF: another site must not sign a reviewer in to an account of its choosing.
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const signIn = await staffLogin(db, { ...request.body, language: signInLanguage(request, options.mailer), correlationId: request.id, requireSecondFactor: options.requireSecondFactor }, clock());
      return replyWithSignIn(reply, signIn, signInCookies);
    },
  );

  typed.post(
    '/login/second-factor',
    {
      schema: {
        operationId: 'completeStaffSecondFactor',
        summary: "Second step of an operator's sign-in",
        description: 'After a 202 from POST /login: an authenticator code, a recovery code or a passkey, with the pending sign-in token (body, or the cookie the login set).',
        tags: ['staff-session'],
        security: [],
        body: secondStepBodySchema,
        response: { 200: sessionIssuedSchema, ...signInProblems, ...problemResponses({ 400: 'VALIDATION_ERROR or INVALID_CODE' }) },
      },
    },
    async (request, reply) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const { pendingSignInToken, ...proof } = request.body;
      const input = { pendingSignInToken: pendingSignInToken ?? request.cookies[CONSOLE_PENDING_COOKIE] ?? '', proof: proof as SecondStepProof, correlationId: request.id, relyingParty: options.relyingParty };
      const session = await completeStaffSecondStep(db, options.box, input, clock());
      return replyWithSignIn(reply, session, signInCookies);
    },
  );

  typed.post(
    '/login/passkey',
    {
      schema: {
        operationId: 'logInStaffWithPasskey',
        summary: 'Sign an operator in with a passkey alone',
        description: 'The answer to the options of POST /login/passkey/options: a discoverable passkey names its operator, so no password is asked.',
        tags: ['staff-session'],
        security: [],
        body: z.strictObject({ passkey: passkeyAssertionSchema }),
        response: { 200: sessionIssuedSchema, ...signInProblems, ...problemResponses({ 400: 'VALIDATION_ERROR or PASSKEY_REJECTED' }) },
      },
    },
    async (request, reply) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const session = await staffSignInWithPasskey(db, options.relyingParty, request.body.passkey, request.id, clock());
      return replyWithSignIn(reply, session, signInCookies);
    },
  );

  await app.register(passkeySignInRoutes, {
    prefix: '/login',
    db,
    clock,
    relyingParty: options.relyingParty,
    pendingCookie: CONSOLE_PENDING_COOKIE,
    allowedOrigins: options.allowedOrigins,
    document: { tags: ['staff-session'], operationPrefix: 'staff' },
  });

  await app.register(passwordResetRoutes, {
    accounts: staffResetAccounts({ requireSecondFactor: options.requireSecondFactor }),
    path: '',
    document: { tags: ['staff-session'], operationNoun: 'Staff', loginRoute: 'POST /login', secondStepRoute: 'POST /login/second-factor' },
    db,
    clock,
    mailer: options.mailer,
    credentials: options.credentials,
    allowedOrigins: options.allowedOrigins,
    signInCookies,
  });

  const staffAccountOf = async (request: FastifyRequest) => staffFactorAccount({ id: requireStaff(request).staffId, email: requireStaff(request).email });

  await app.register(secondFactorRoutes, {
    db,
    clock,
    box: options.box,
    relyingParty: options.relyingParty,
    accountOf: staffAccountOf,
    mailer: options.mailer,
    afterEnrolled: (request) => liftStaffEnrolmentOnly(db, requireStaff(request).staffId),
    beforeRemoval: async (account, factorId) => {
      if (options.requireSecondFactor) await refuseRemovingLastFactor(db, account, factorId, 'This service');
    },
    config: { enrolment: { allowsEnrolmentOnly: true }, other: {} },
    document: { tags: ['staff-account'], security: staffSecurity, operationPrefix: 'staff' },
  });

  await app.register(reauthenticationRoutes, {
    db,
    clock,
    box: options.box,
    relyingParty: options.relyingParty,
    accountOf: staffAccountOf,
    sessionOf: (request) => ({ kind: 'staff', id: requireStaff(request).sessionId }),
    afterReauthenticated: (change) => change(),
    config: {},
    document: { tags: ['staff-account'], security: staffSecurity, operationPrefix: 'staff' },
  });

  await app.register(accountLanguageRoutes, {
    db,
    accountOf: staffAccountOf,
    config: {},
    document: { tags: ['staff-account'], security: staffSecurity, operationPrefix: 'staff' },
  });

  typed.post(
    '/logout',
    {
      config: { allowsEnrolmentOnly: true },
      schema: {
        operationId: 'logOutStaff',
        summary: 'End this staff session',
        tags: ['staff-session'],
        security: staffSecurity,
        response: { 204: z.null().describe('Signed out; the cookie is cleared'), ...problemResponses({ 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED', 429: RATE_LIMITED }) },
      },
    },
    async (request, reply) => {
      await endStaffSession(db, requireStaff(request), request.id, clock());
      return reply.clearCookie(CONSOLE_COOKIE, cookie).code(204).send(null);
    },
  );

  typed.get(
    '/session',
    {
      config: { allowsEnrolmentOnly: true },
      schema: {
        operationId: 'getStaffSession',
        summary: 'The signed-in operator and their session',
        tags: ['staff-session'],
        security: staffSecurity,
        response: { 200: staffSessionSchema, ...problemResponses({ 401: 'UNAUTHENTICATED', 429: RATE_LIMITED }) },
      },
    },
    async (request) => {
      const staff = requireStaff(request);
      return { staff: { id: staff.staffId, email: staff.email, role: staff.role }, expiresAt: staff.expiresAt.toISOString(), idleTimeoutSeconds: STAFF_IDLE_SECONDS, enrolmentOnly: staff.enrolmentOnly };
    },
  );

  // The document of this API, for staff only (the hook above): the operators' routes are nobody else's map.
  // It holds no data, so an operator still setting up a second factor may read it too.
  typed.get('/openapi.json', { config: { allowsEnrolmentOnly: true }, schema: { hide: true } }, async () => {
    return options.openApiDocument();
  });

  await app.register(internalCaseRoutes, { db, clock, storage: options.storage, ffmpegPath: options.ffmpegPath });
};
