import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ForbiddenError, problemResponses } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import type { IdentityExecutor } from '../../db/schema.js';
import type { CredentialCache } from '../../domain/common/credential-cache.js';
import { liftEnrolmentOnly, portalAccountOf, refuseRemovingLastRequiredFactor } from '../../domain/accounts/second-factors/portal-factors.js';
import { updateTenantSettings } from '../../domain/tenants/tenants.js';
import { requirePrincipal } from '../../plugins/authentication.js';
import { portalSecurity, RATE_LIMITED } from '../openapi.js';
import { secondFactorRoutes } from '../accounts/second-factor-routes.js';
import { reauthenticationRoutes } from '../accounts/reauthentication-routes.js';
import { accountLanguageRoutes } from '../accounts/account-language-routes.js';
import type { IdentityMailer } from '../../domain/mail/identity-mailer.js';
import type { RelyingParty } from '../../domain/accounts/second-factors/passkeys.js';

export interface PortalSecondFactorRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  credentials: CredentialCache;
  box: SecretBox;
  relyingParty: RelyingParty;
  mailer: IdentityMailer;
}

function portalPrincipal(request: FastifyRequest) {
  const principal = requirePrincipal(request);
  if (principal.kind !== 'portal') throw new ForbiddenError("This is the partner portal's own API: it needs a portal session, not an API access token.");
  return principal;
}

/** The portal user's own second factors, and the admin's switch requiring them for the whole tenant. */
export const portalSecondFactorRoutes: FastifyPluginAsync<PortalSecondFactorRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;

  const accountOf = (request: FastifyRequest) => portalAccountOf(db, portalPrincipal(request));

  await app.register(secondFactorRoutes, {
    prefix: '/portal',
    db,
    clock,
    box: options.box,
    relyingParty: options.relyingParty,
    accountOf,
    mailer: options.mailer,
    afterEnrolled: (request) => afterCredentialsChange(options.credentials, () => liftEnrolmentOnly(db, portalPrincipal(request))),
    beforeRemoval: (account, factorId) => refuseRemovingLastRequiredFactor(db, account, factorId),
    config: { enrolment: { auth: 'portal', allowsEnrolmentOnly: true }, other: { auth: 'portal' } },
    document: { tags: ['portal'], security: portalSecurity, operationPrefix: 'portal' },
  });

  await app.register(reauthenticationRoutes, {
    prefix: '/portal',
    db,
    clock,
    box: options.box,
    relyingParty: options.relyingParty,
    accountOf,
    sessionOf: (request) => ({ kind: 'portal', id: portalPrincipal(request).sessionId }),
    afterReauthenticated: (change) => afterCredentialsChange(options.credentials, change),
    config: { auth: 'portal' },
    document: { tags: ['portal'], security: portalSecurity, operationPrefix: 'portal' },
  });

  await app.register(accountLanguageRoutes, {
    prefix: '/portal',
    db,
    accountOf,
    config: { auth: 'portal' },
    document: { tags: ['portal'], security: portalSecurity, operationPrefix: 'portal' },
  });

  typed.put(
    '/portal/tenant/security',
    {
      config: { auth: 'portal-admin', freshAuthentication: true },
      schema: {
        operationId: 'updatePortalTenantSecurity',
        summary: "Your organisation's sign-in rules",
        description: 'With `requireSecondFactor`, users without a second factor are sent to set one up at their next sign-in. Role PartnerAdmin, with the password or a second factor given in the last 5 minutes.',
        tags: ['portal'],
        security: portalSecurity,
        body: z.strictObject({ requireSecondFactor: z.boolean() }),
        response: {
          200: z.object({ requireSecondFactor: z.boolean() }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'REAUTHENTICATION_REQUIRED, FORBIDDEN (not PartnerAdmin), CSRF_REJECTED, ACCOUNT_DISABLED', 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => {
      const principal = portalPrincipal(request);
      const settings = { requireSecondFactor: String(request.body.requireSecondFactor) };
      const updated = await db.transaction((tx) => updateTenantSettings(tx, principal.tenantId, settings, clock(), `user:${principal.userId}`));
      return { requireSecondFactor: updated.requireSecondFactor };
    },
  );
};

/** Empties this instance's cache at once (others on the NOTIFY) so the changed sessions are re-read on their next request. */
async function afterCredentialsChange(credentials: CredentialCache, change: () => Promise<void>): Promise<void> {
  const seen = credentials.changesSeen;
  await change();
  credentials.clear();
  await credentials.announcementSeen(seen);
}
