import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { captureEmbedOriginsOf, captureEmbedOriginsSchema, MAX_CAPTURE_EMBED_ORIGINS, setCaptureEmbedOrigins } from '../../domain/tenants/capture-embed.js';
import { requirePartner } from '../../plugins/authentication.js';
import { RATE_LIMITED, partnerSecurity } from '../openapi.js';

export interface CaptureSettingsRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  /** http://localhost and http://127.0.0.1 origins are accepted too (the embedded default only, for local development). */
  allowLoopbackHttp: boolean;
}

const AUTH_ERRORS = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN (scope verifications missing, client revoked, PartnerReadOnly writing) or ACCOUNT_DISABLED', 429: RATE_LIMITED } as const;

const captureSettingsSchema = z
  .object({
    captureEmbedOrigins: z.array(z.string()).meta({
      description: `The origins whose pages may show the hosted capture page in an iframe (Content-Security-Policy frame-ancestors, and the camera through Permissions-Policy); empty: no page may. https origins only (scheme, host, optional port), at most ${MAX_CAPTURE_EMBED_ORIGINS}.`,
    }),
  })
  .meta({ id: 'CaptureSettings' });

/**
 * The tenant's settings for the hosted capture page, for the partner's backend (scope
 * verifications: they decide where its cases' capture may run) and the portal alike.
 */
export const captureSettingsRoutes: FastifyPluginAsync<CaptureSettingsRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;

  typed.get(
    '/capture-settings',
    {
      schema: {
        operationId: 'getCaptureSettings',
        summary: 'Where the hosted capture page may be embedded',
        description: 'Any portal role, or an access token with scope verifications.',
        tags: ['verifications'],
        security: partnerSecurity,
        response: { 200: captureSettingsSchema, ...problemResponses(AUTH_ERRORS) },
      },
    },
    async (request) => {
      const { tenantId } = requirePartner(request);
      return { captureEmbedOrigins: await captureEmbedOriginsOf(db, tenantId) };
    },
  );

  typed.put(
    '/capture-settings',
    {
      schema: {
        operationId: 'updateCaptureSettings',
        summary: 'Set where the hosted capture page may be embedded',
        description:
          'Replaces the list. Each origin is https://host[:port] exactly as a browser reports it (a trailing slash is dropped; no path, query, wildcard or credentials); duplicates are dropped. PartnerAdmin, or an access token with scope verifications. Takes effect on the next load of the capture page.',
        tags: ['verifications'],
        security: partnerSecurity,
        body: z.strictObject({ captureEmbedOrigins: captureEmbedOriginsSchema(options.allowLoopbackHttp) }),
        response: { 200: captureSettingsSchema, ...problemResponses({ 400: 'VALIDATION_ERROR: not an https origin, or too many', ...AUTH_ERRORS }) },
      },
    },
    async (request) => {
      const { tenantId, actor } = requirePartner(request);
      const origins = await db.transaction((tx) => setCaptureEmbedOrigins(tx, tenantId, request.body.captureEmbedOrigins, clock(), actor.actor));
      return { captureEmbedOrigins: origins };
    },
  );
};
