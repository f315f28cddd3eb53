import { ForbiddenError, problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { listClients, registerClient, revokeClient, toOAuthClient } from '../../domain/access/oauth-clients.js';
import { DEFAULT_SCOPES } from '../../domain/access/scopes.js';
import { requirePrincipal, type Principal } from '../../plugins/authentication.js';
import { portalSecurity, RATE_LIMITED, tokenSecurity } from '../openapi.js';
import type { CredentialCache } from '../../domain/common/credential-cache.js';

export interface OAuthClientRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  /** Emptied here at once after a revocation (other instances empty theirs on its NOTIFY). */
  credentials: CredentialCache;
}

const oauthClientSchema = z
  .object({
    id: z.uuid(),
    clientId: z.string().meta({ examples: ['svc_0123456789abcdef0123456789abcdef'] }),
    clientName: z.string(),
    certificateThumbprint: z.string().meta({ description: 'Lowercase hex SHA-256 of the certificate DER' }),
    certificateSubjectDN: z.string(),
    certificateNotBefore: z.string(),
    certificateNotAfter: z.string(),
    allowedScopes: z.string(),
    isActive: z.boolean(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'OAuthClient' });

function portalActor(principal: Principal, correlationId: string) {
  if (principal.kind !== 'portal') throw new ForbiddenError('OAuth clients are managed through the partner portal (PartnerAdmin).');
  return { tenantId: principal.tenantId, userId: principal.userId, correlationId };
}

export const oauthClientRoutes: FastifyPluginAsync<OAuthClientRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/oauth/clients',
    {
      config: { auth: 'portal-admin', freshAuthentication: true },
      schema: {
        operationId: 'createOAuthClient',
        summary: 'Register a certificate-bound OAuth client',
        description: `Role PartnerAdmin (portal session), with the password or a second factor given in the last 5 minutes. The certificate's SHA-256 thumbprint, subject DN and validity are extracted. Default scopes: \`${DEFAULT_SCOPES}\`. At most 5 active clients per tenant.`,
        tags: ['oauth'],
        security: portalSecurity,
        body: z.strictObject({
          clientName: z.string().trim().min(1).max(200),
          certificatePem: z.string().min(1).max(20_000).meta({ description: 'X.509 certificate in PEM (never the private key)' }),
          allowedScopes: z.string().max(200).optional().meta({ description: 'Space-delimited subset of: verifications webhooks evidence reports' }),
        }),
        response: {
          201: z.object({ client: oauthClientSchema, clientId: z.string() }),
          ...problemResponses({
            400: 'VALIDATION_ERROR: malformed, expired or not-yet-valid certificate, a private key, or unknown scopes',
            401: 'UNAUTHENTICATED: no valid portal session',
            403: 'FORBIDDEN (not PartnerAdmin), REAUTHENTICATION_REQUIRED (no password or second factor in the last 5 minutes) or ACCOUNT_DISABLED',
            409: 'CONFLICT: certificate already registered, or 5 active clients already',
            429: RATE_LIMITED,
          }),
        },
      },
    },
    async (request, reply) => {
      const actor = portalActor(requirePrincipal(request), request.id);
      const row = await registerClient(options.db, actor, request.body, options.clock());
      return reply.code(201).send({ client: toOAuthClient(row), clientId: row.clientId });
    },
  );

  typed.get(
    '/oauth/clients',
    {
      config: { auth: 'portal-or-token' },
      schema: {
        operationId: 'listOAuthClients',
        summary: "List the tenant's OAuth clients",
        description: 'A portal session or a certificate-bound access token (any scope). Metadata only, revoked clients included.',
        tags: ['oauth'],
        security: [...portalSecurity, ...tokenSecurity],
        response: {
          200: z.array(oauthClientSchema),
          ...problemResponses({ 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN (client revoked) or ACCOUNT_DISABLED', 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => {
      const rows = await listClients(options.db, requirePrincipal(request).tenantId);
      return rows.map(toOAuthClient);
    },
  );

  typed.delete(
    '/oauth/clients/:clientEntityId',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'revokeOAuthClient',
        summary: 'Revoke an OAuth client and all its tokens (irreversible)',
        tags: ['oauth'],
        security: portalSecurity,
        params: z.object({ clientEntityId: z.uuid({ error: 'must be the client id (a UUID)' }) }),
        response: {
          204: z.null().describe('Revoked'),
          ...problemResponses({
            400: 'CLIENT_ALREADY_REVOKED, or VALIDATION_ERROR for an id that is not a UUID',
            401: 'UNAUTHENTICATED',
            403: 'FORBIDDEN or ACCOUNT_DISABLED',
            404: "NOT_FOUND: unknown, or another tenant's client",
            429: RATE_LIMITED,
          }),
        },
      },
    },
    async (request, reply) => {
      const actor = portalActor(requirePrincipal(request), request.id);
      const seen = options.credentials.changesSeen;
      await revokeClient(options.db, actor, request.params.clientEntityId, options.clock());
      options.credentials.clear();
      await options.credentials.announcementSeen(seen);
      return reply.code(204).send(null);
    },
  );
};
