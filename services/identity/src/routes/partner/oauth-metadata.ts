import type { FastifyPluginAsync } from 'fastify';
import { problemResponses } from '@svc/problem-json';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SCOPES } from '../../domain/access/scopes.js';

export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';

export interface OAuthMetadataRouteOptions {
  /** PUBLIC_BASE_URL: an https origin, configured once (never taken from the request's Host). */
  issuer: string;
  /** MTLS_BASE_URL, when the mutual-TLS endpoints are on another origin. */
  mtlsBaseUrl?: string | undefined;
  /** Where the token, introspection and revocation endpoints are mounted (/api/partner/v1). */
  apiBasePath: string;
}

/**
 * Every client authenticates with the certificate it registered, which no CA vouches for:
 * RFC 8705 §2.2 self_signed_tls_client_auth, at all three endpoints.
 */
const CLIENT_AUTH_METHODS = ['self_signed_tls_client_auth'] as const;

const endpointsSchema = z.object({
  token_endpoint: z.url(),
  introspection_endpoint: z.url(),
  revocation_endpoint: z.url(),
});

const metadataSchema = endpointsSchema
  .extend({
    issuer: z.url().meta({ description: 'PUBLIC_BASE_URL; equal to the URL this document was discovered from, without the well-known suffix' }),
    grant_types_supported: z.array(z.literal('client_credentials')),
    response_types_supported: z.array(z.string()).meta({ description: 'Empty: no authorization endpoint (client credentials only)' }),
    token_endpoint_auth_methods_supported: z.array(z.enum(CLIENT_AUTH_METHODS)),
    introspection_endpoint_auth_methods_supported: z.array(z.enum(CLIENT_AUTH_METHODS)),
    revocation_endpoint_auth_methods_supported: z.array(z.enum(CLIENT_AUTH_METHODS)),
    tls_client_certificate_bound_access_tokens: z.literal(true),
    mtls_endpoint_aliases: endpointsSchema.optional().meta({ description: 'Only when MTLS_BASE_URL is another origin than the issuer (RFC 8705 §5)' }),
    scopes_supported: z.array(z.enum(SCOPES)),
    service_documentation: z.url(),
  })
  .meta({ id: 'OAuthAuthorizationServerMetadata', description: 'RFC 8414 authorization server metadata with the RFC 8705 parameters' });

type Metadata = z.infer<typeof metadataSchema>;

function endpointsAt(origin: string, apiBasePath: string): z.infer<typeof endpointsSchema> {
  return {
    token_endpoint: `${origin}${apiBasePath}/oauth/token`,
    introspection_endpoint: `${origin}${apiBasePath}/oauth/introspect`,
    revocation_endpoint: `${origin}${apiBasePath}/oauth/revoke`,
  };
}

/** The metadata depends on the configuration only, so it is built once. */
export function authorizationServerMetadata(options: OAuthMetadataRouteOptions): Metadata {
  const aliases = options.mtlsBaseUrl !== undefined && options.mtlsBaseUrl !== options.issuer ? { mtls_endpoint_aliases: endpointsAt(options.mtlsBaseUrl, options.apiBasePath) } : {};
  return {
    issuer: options.issuer,
    ...endpointsAt(options.issuer, options.apiBasePath),
    grant_types_supported: ['client_credentials'],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    tls_client_certificate_bound_access_tokens: true,
    ...aliases,
    scopes_supported: [...SCOPES],
    service_documentation: `${options.issuer}/docs`,
  };
}

export const oauthMetadataRoutes: FastifyPluginAsync<OAuthMetadataRouteOptions> = async (app, options) => {
  const metadata = authorizationServerMetadata(options);
  app.withTypeProvider<ZodTypeProvider>().get(
    OAUTH_METADATA_PATH,
    {
      schema: {
        operationId: 'getOAuthAuthorizationServerMetadata',
        summary: 'OAuth 2.0 authorization server metadata (RFC 8414, RFC 8705)',
        description: 'Lets an OAuth client library find the token, introspection and revocation endpoints and learn that clients authenticate, and tokens are bound, by mutual TLS.',
        tags: ['oauth'],
        // Discovery comes before a client has anything to authenticate with.
        security: [],
        // Strict, as the health route: a parameter it would ignore is refused.
        querystring: z.strictObject({}),
        response: { 200: metadataSchema, ...problemResponses({ 400: 'A query parameter was sent; the metadata takes none' }) },
      },
    },
    async (_request, reply) => {
      // Changes only with a configuration change and a restart.
      void reply.header('Cache-Control', 'public, max-age=3600');
      return metadata;
    },
  );
};
