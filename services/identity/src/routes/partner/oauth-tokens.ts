import formbody from '@fastify/formbody';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { authenticateCallingClient, introspectToken, issueAccessToken, revokeToken } from '../../domain/access/access-tokens.js';
import type { LastUsedBatcher } from '@svc/service-kit';
import { OAuthError } from '../../domain/access/oauth-errors.js';
import { problemResponses } from '@svc/problem-json';
import { RATE_LIMITED } from '../openapi.js';
import type { CredentialCache } from '../../domain/common/credential-cache.js';

export interface OAuthTokenRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  lastUsed: LastUsedBatcher;
  /** Emptied here at once after a revocation (other instances empty theirs on its NOTIFY). */
  credentials: CredentialCache;
}

const FORM = 'application/x-www-form-urlencoded';
/** An OAuth request is a few short parameters: 8 KB is plenty, and a larger body is refused early. */
const OAUTH_BODY_LIMIT = 8 * 1024;
const mtlsSecurity = [{ mutualTLS: [] }];
const oauthErrorSchema = z
  .object({ error: z.string(), error_description: z.string(), type: z.string(), title: z.string(), status: z.number(), detail: z.string(), code: z.string() })
  .meta({ id: 'OAuthError', description: 'RFC 6749 error members plus the problem document members, as application/json' });
const oauthErrors = (errors: Record<number, string>) => Object.fromEntries(Object.entries(errors).map(([status, text]) => [status, oauthErrorSchema.describe(text)]));

const tokenRequestSchema = z.object({
  grant_type: z.string().meta({ description: 'client_credentials' }),
  client_id: z.string().meta({ description: 'The clientId from registration (svc_…)' }),
  scope: z.string().optional().meta({ description: "Space-delimited; default: the client's allowed scopes" }),
});
const tokenParameterSchema = z.object({ token: z.string().max(512), token_type_hint: z.string().optional() });
const cnfSchema = z.object({ 'x5t#S256': z.string().meta({ description: 'base64url (no padding) SHA-256 of the certificate DER (RFC 8705 §3.1)' }) });

/** One value per parameter (RFC 6749 §3.2): a repeated form parameter arrives as an array and is refused. */
function parameter(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | null | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new OAuthError(400, 'invalid_request', `The parameter ${name} must be given once, as a string.`);
  return value;
}

function requiredParameter(body: unknown, name: string): string {
  const value = parameter(body, name);
  if (value === undefined || value === '') throw new OAuthError(400, 'invalid_request', `The parameter ${name} is required.`);
  return value;
}

function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase() === FORM;
}

export const oauthTokenRoutes: FastifyPluginAsync<OAuthTokenRouteOptions> = async (app, options) => {
  // Form bodies for these three endpoints only; the rest of the API is JSON. The same limit is
  // each route's own, so whatever the content type a 413 names the limit that applies.
  await app.register(formbody, { bodyLimit: OAUTH_BODY_LIMIT });
  app.addHook('onRoute', (route) => {
    route.bodyLimit = OAUTH_BODY_LIMIT;
  });
  const typed = app.withTypeProvider<ZodTypeProvider>();
  /** Introspect and revoke: the calling client (by its certificate) and the token it asks about. */
  async function tokenRequest(request: FastifyRequest) {
    const caller = await authenticateCallingClient(options.db, request.clientCertificateThumbprint());
    const token = requiredParameter(request.body, 'token');
    const now = options.clock();
    options.lastUsed.record(caller.clientEntityId, now);
    return { caller, token, now };
  }

  app.addHook('onSend', async (_request, reply) => {
    void reply.header('Pragma', 'no-cache');
  });

  typed.post(
    '/oauth/token',
    {
      config: { auth: 'public' },
      attachValidation: true,
      schema: {
        operationId: 'requestAccessToken',
        summary: 'Get a certificate-bound access token (client_credentials over mutual TLS)',
        description:
          'Form-encoded. The client authenticates with its registered certificate (RFC 8705 tls_client_auth): directly over mutual TLS, or through the TLS-terminating proxy. The token (svc_at_…, 3600 s) works only together with the same certificate.',
        tags: ['oauth'],
        security: mtlsSecurity,
        consumes: [FORM],
        body: tokenRequestSchema,
        response: {
          200: z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string(), cnf: cnfSchema }),
          ...oauthErrors({
            400: 'invalid_request, unsupported_grant_type or invalid_scope',
            401: 'invalid_client: unknown or revoked client, no certificate, or not the registered certificate',
            403: 'ACCOUNT_DISABLED: the tenant is disabled',
          }),
          ...problemResponses({ 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => {
      if (!isForm(request)) throw new OAuthError(400, 'invalid_request', `The token request must be sent as ${FORM}.`);
      const grantType = requiredParameter(request.body, 'grant_type');
      if (grantType !== 'client_credentials') throw new OAuthError(400, 'unsupported_grant_type', `grant_type "${grantType}" is not supported; use client_credentials.`);
      const clientId = requiredParameter(request.body, 'client_id');
      const now = options.clock();
      const { clientEntityId, ...token } = await issueAccessToken(options.db, { clientId, scope: parameter(request.body, 'scope'), thumbprint: request.clientCertificateThumbprint() }, now);
      options.lastUsed.record(clientEntityId, now);
      return token;
    },
  );

  typed.post(
    '/oauth/introspect',
    {
      config: { auth: 'public' },
      attachValidation: true,
      schema: {
        operationId: 'introspectAccessToken',
        summary: 'Introspect an access token (RFC 7662, mutual TLS)',
        description: "JSON or form-encoded `token`. The caller is the client whose certificate is presented; another tenant's token reads as inactive.",
        tags: ['oauth'],
        security: mtlsSecurity,
        consumes: ['application/json', FORM],
        body: tokenParameterSchema,
        response: {
          200: z.union([
            z.object({
              active: z.literal(true),
              client_id: z.string(),
              scope: z.string(),
              tenant_id: z.string(),
              exp: z.number().int(),
              iat: z.number().int(),
              token_type: z.literal('Bearer'),
              cnf: cnfSchema,
            }),
            z.object({ active: z.literal(false) }),
          ]),
          ...oauthErrors({ 400: 'invalid_request: no token', 401: 'invalid_client: no certificate, or not an active client', 403: 'ACCOUNT_DISABLED' }),
          ...problemResponses({ 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => {
      const { caller, token, now } = await tokenRequest(request);
      return introspectToken(options.db, caller.tenantId, token, now);
    },
  );

  typed.post(
    '/oauth/revoke',
    {
      config: { auth: 'public' },
      attachValidation: true,
      schema: {
        operationId: 'revokeAccessToken',
        summary: 'Revoke an access token (RFC 7009, mutual TLS)',
        description: "JSON or form-encoded `token`. Always 200, whether or not the token existed; another tenant's token is left alone.",
        tags: ['oauth'],
        security: mtlsSecurity,
        consumes: ['application/json', FORM],
        body: tokenParameterSchema,
        response: {
          200: z.object({}).describe('Revoked, or nothing to revoke'),
          ...oauthErrors({ 400: 'invalid_request: no token', 401: 'invalid_client: no certificate, or not an active client', 403: 'ACCOUNT_DISABLED' }),
          ...problemResponses({ 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => {
      const { caller, token, now } = await tokenRequest(request);
      const seen = options.credentials.changesSeen;
      // An unknown, foreign or already revoked token changes nothing, so there is no announcement to wait (a second) for.
      if (await revokeToken(options.db, caller.tenantId, token, now)) {
        options.credentials.clear();
        await options.credentials.announcementSeen(seen);
      }
      return {};
    },
  );
};
