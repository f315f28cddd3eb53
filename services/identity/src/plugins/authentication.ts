import { ForbiddenError, ProblemError, UnauthenticatedError } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { IdentityExecutor } from '../db/schema.js';
import { ACCESS_TOKEN_PREFIX, authenticateAccessToken, type TokenPrincipal } from '../domain/access/access-tokens.js';
import type { LastUsedBatcher } from '@svc/service-kit';
import { authenticatePortalSession, PORTAL_SESSION_PREFIX, type PortalPrincipal } from '../domain/accounts/portal-sessions.js';
import { scopeForPath } from '../domain/access/scopes.js';
import { routeConfig, routingPath } from '@svc/service-kit';
import type { CredentialCache } from '../domain/common/credential-cache.js';
import { requireFreshAuthentication } from '../domain/accounts/reauthentication.js';

/**
 * Who may call a route, declared in its `config.auth`:
 * - `public`: anyone (login, and the OAuth endpoints, which authenticate the client themselves);
 * - `portal` / `portal-admin`: a partner-portal session (cookie or Bearer svc_ps_), the latter with role PartnerAdmin;
 * - `portal-or-token`: either a portal session or a certificate-bound access token;
 * - `token` (the default, also for unknown paths): a certificate-bound access token holding the path's scope.
 *   The partner areas (/verifications, /evidence, /webhooks, /reports) also take a portal session, so
 *   the portal uses the same routes as the API: any portal role may read, only PartnerAdmin may write,
 *   and a cookie-authenticated write must come from this service's own origin (CSRF).
 */
export type AuthPolicy = 'public' | 'portal' | 'portal-admin' | 'portal-or-token' | 'token';

export type Principal = ({ kind: 'portal' } & PortalPrincipal) | ({ kind: 'token' } & TokenPrincipal);

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy;
    /** A session that may only enrol a second factor is accepted here (enrolment, who am I, sign-out). */
    allowsEnrolmentOnly?: boolean;
    /**
     * A sensitive change: a session (portal or console) must have given its password or a second
     * factor in the last 5 minutes. API access tokens are machine credentials and are not asked.
     */
    freshAuthentication?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const PORTAL_COOKIE = 'svc_portal_session';

export interface AuthenticationOptions {
  db: IdentityExecutor;
  clock: () => Date;
  basePath: string;
  lastUsed: LastUsedBatcher;
  /** Verified tokens and sessions, remembered briefly (domain/credential-cache.ts). */
  credentials: CredentialCache;
  /** Origins besides the request's own host whose cookie-authenticated writes are accepted (PUBLIC_BASE_URL). */
  allowedOrigins: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const isWrite = (request: FastifyRequest) => !SAFE_METHODS.has(request.method);

/**
 * CSRF defence in depth beside SameSite=Strict: a write authenticated by the cookie alone must
 * name this service as its Origin (browsers send it on every cross-origin request and on
 * same-origin writes), or, without Origin, be marked same-origin by Sec-Fetch-Site. The Host a
 * browser sends is the one it connected to, so a page elsewhere cannot fake a match.
 */
export function refuseCrossOrigin(request: FastifyRequest, allowedOrigins: readonly string[]): void {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (sameOrigin(origin, request) || allowedOrigins.includes(origin)) return;
    throw new CsrfRejectedError(`The request came from ${origin}, not from this service's own pages; cookie-authenticated writes are accepted only from the portal itself.`);
  }
  if (request.headers['sec-fetch-site'] === 'same-origin') return;
  throw new CsrfRejectedError('A cookie-authenticated write needs an Origin header naming this service (browsers send it); API clients send Authorization: Bearer instead.');
}

/** Compared as URLs, so a default port written out on either side (`Host: localhost:80`) still matches. */
function sameOrigin(origin: string, request: FastifyRequest): boolean {
  try {
    return new URL(origin).origin === new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    // "null" (a sandboxed frame, a redirect) and garbage are no origin of ours.
    return false;
  }
}

class CsrfRejectedError extends ProblemError {
  constructor(detail: string) {
    super({ status: 403, code: 'CSRF_REJECTED', title: 'Forbidden', detail });
  }
}

/** 403: the session is real, but until a second factor is set up it opens nothing else. */
export class SecondFactorEnrolmentRequiredError extends ProblemError {
  constructor() {
    super({ status: 403, code: 'SECOND_FACTOR_ENROLMENT_REQUIRED', title: 'Second Factor Required', detail: 'This account must set up a second factor (a passkey or an authenticator app) before doing anything else.' });
  }
}

/** The token of `Authorization: Bearer <token>`, or null when the header is absent or not that form. */
export function bearerCredential(request: FastifyRequest): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1] ?? null;
}

/** The partner API is strict: an Authorization header it cannot read is a 401 of its own. */
function bearerToken(request: FastifyRequest): string | null {
  if (!request.headers.authorization) return null;
  const token = bearerCredential(request);
  if (!token) throw new UnauthenticatedError('The Authorization header must be "Bearer <token>".');
  return token;
}

/** Portal credentials: Authorization Bearer svc_ps_… first, else the session cookie. */
function portalSessionToken(request: FastifyRequest, bearer: string | null): string | null {
  if (bearer?.startsWith(PORTAL_SESSION_PREFIX)) return bearer;
  return request.cookies[PORTAL_COOKIE] ?? null;
}

/**
 * Deny by default: a route under the base path without `config.auth`, or a path that
 * matches no route, requires a token with the path's scope. Runs for 404s too, so an
 * unauthenticated caller cannot map which routes exist.
 */
const authentication: FastifyPluginAsync<AuthenticationOptions> = async (app, options) => {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    try {
      await authenticate(request);
    } catch (error) {
      throw withBearerChallenge(error, request.headers.authorization !== undefined);
    }
  });

  async function authenticate(request: FastifyRequest): Promise<void> {
    const path = routingPath(request);
    if (!path.startsWith(`${options.basePath}/`)) return;
    const policy: AuthPolicy = routeConfig(request).auth ?? 'token';
    if (policy === 'public') return;
    const now = options.clock();
    const bearer = bearerToken(request);
    const scope = policy === 'token' ? scopeForPath(path.slice(options.basePath.length)) : null;
    const portalCredentials = bearer?.startsWith(PORTAL_SESSION_PREFIX) === true || (bearer === null && request.cookies[PORTAL_COOKIE] !== undefined);
    if (scope !== null && portalCredentials) {
      request.principal = { kind: 'portal', ...(await authenticatePortal(request, bearer, now, isWrite(request) ? 'portal-admin' : 'portal')) };
      return;
    }
    const wantsToken = policy === 'token' || (policy === 'portal-or-token' && bearer?.startsWith(ACCESS_TOKEN_PREFIX) === true);
    if (wantsToken) {
      if (!bearer) throw new UnauthenticatedError('An access token is required: send Authorization: Bearer svc_at_… over mutual TLS.');
      const principal = await authenticateAccessToken(options.db, bearer, request.clientCertificateThumbprint(), now, options.credentials);
      if (scope && !principal.scopes.includes(scope)) throw new ForbiddenError(`The access token lacks the scope "${scope}" that this endpoint requires.`);
      options.lastUsed.record(principal.clientEntityId, now);
      request.principal = { kind: 'token', ...principal };
      return;
    }
    if (bearer?.startsWith(ACCESS_TOKEN_PREFIX)) {
      // A valid API token on a portal-only route: authenticated, but not allowed.
      await authenticateAccessToken(options.db, bearer, request.clientCertificateThumbprint(), now);
      throw new ForbiddenError('This action needs a partner portal session (PartnerAdmin), not an API access token.');
    }
    request.principal = { kind: 'portal', ...(await authenticatePortal(request, bearer, now, policy === 'portal-admin' ? 'portal-admin' : 'portal')) };
  }

  async function authenticatePortal(request: FastifyRequest, bearer: string | null, now: Date, policy: 'portal' | 'portal-admin'): Promise<PortalPrincipal> {
    const sessionToken = portalSessionToken(request, bearer);
    if (!sessionToken) throw new UnauthenticatedError('A partner portal session is required: log in with POST /portal/login.');
    // Before the session is even looked up: a forged cross-site write learns nothing.
    if (sessionToken !== bearer && isWrite(request)) refuseCrossOrigin(request, options.allowedOrigins);
    const principal = await authenticatePortalSession(options.db, sessionToken, now, options.credentials);
    if (principal.enrolmentOnly && routeConfig(request).allowsEnrolmentOnly !== true) throw new SecondFactorEnrolmentRequiredError();
    if (policy === 'portal-admin' && principal.role !== 'PartnerAdmin') throw new ForbiddenError(`This action requires the PartnerAdmin role; ${principal.role} may only read.`);
    if (routeConfig(request).freshAuthentication === true) requireFreshAuthentication(principal.authenticatedAt, now);
    return principal;
  }
};

/** RFC 6750 §3: a 401 from a bearer-protected resource says how to authenticate. */
function withBearerChallenge(error: unknown, credentialsSent: boolean): unknown {
  if (!(error instanceof ProblemError) || error.status !== 401) return error;
  const challenge = credentialsSent ? 'Bearer realm="identity", error="invalid_token"' : 'Bearer realm="identity"';
  return new ProblemError({
    status: error.status,
    code: error.code,
    title: error.title,
    detail: error.detail,
    extensions: error.extensions,
    headers: { ...error.headers, 'WWW-Authenticate': challenge },
  });
}

export const authenticationPlugin = fp(authentication, { name: 'identity-authentication', dependencies: ['@fastify/cookie', 'identity-client-certificate'] });

/** The principal of an authenticated route (the hook guarantees it). */
export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthenticatedError();
  return request.principal;
}

/** The principal of a portal-only route: an API access token is authenticated but not allowed there. */
export function requirePortalPrincipal(request: FastifyRequest): { kind: 'portal' } & PortalPrincipal {
  const principal = requirePrincipal(request);
  if (principal.kind !== 'portal') throw new ForbiddenError("This is the partner portal's own API: it needs a portal session, not an API access token.");
  return principal;
}

/**
 * The partner behind a request to the partner areas: a certificate-bound API token, or a portal
 * user of the tenant (the hook has already checked the role for writes). Its tenant scopes every
 * query, and it is the actor of audit rows: `client:<clientId>` or `user:<userId>`.
 */
export function requirePartner(request: FastifyRequest): { tenantId: string; actor: { actor: string; correlationId: string } } {
  const principal = requirePrincipal(request);
  const actor = principal.kind === 'token' ? `client:${principal.clientId}` : `user:${principal.userId}`;
  return { tenantId: principal.tenantId, actor: { actor, correlationId: request.id } };
}
