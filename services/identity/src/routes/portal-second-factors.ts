import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ForbiddenError, problemResponses } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import type { IdentityExecutor } from '../db/schema.js';
import type { CredentialCache } from '../domain/credential-cache.js';
import { confirmTotpEnrolment, listFactors, regenerateRecoveryCodes, removeFactor, startTotpEnrolment } from '../domain/accounts/second-factors/factors.js';
import { liftEnrolmentOnly, portalAccountOf, refuseRemovingLastRequiredFactor } from '../domain/accounts/second-factors/portal-factors.js';
import { updateTenantSettings } from '../domain/tenants.js';
import { requirePrincipal } from '../plugins/authentication.js';
import { portalSecurity, RATE_LIMITED } from './openapi.js';
import { factorListSchema, recoveryCodesSchema, totpCodeSchema, totpEnrolmentSchema } from './second-factor-schemas.js';

export interface PortalSecondFactorRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  credentials: CredentialCache;
  box: SecretBox;
}

function portalPrincipal(request: FastifyRequest) {
  const principal = requirePrincipal(request);
  if (principal.kind !== 'portal') throw new ForbiddenError("This is the partner portal's own API: it needs a portal session, not an API access token.");
  return principal;
}

const problems = problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED, ACCOUNT_DISABLED', 429: RATE_LIMITED });
const enrolment = { auth: 'portal', allowsEnrolmentOnly: true } as const;

/** The portal user's own second factors, and the admin's switch requiring them for the whole tenant. */
export const portalSecondFactorRoutes: FastifyPluginAsync<PortalSecondFactorRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, box, clock } = options;

  typed.get(
    '/portal/account/second-factors',
    {
      config: enrolment,
      schema: { operationId: 'listPortalSecondFactors', summary: 'Your second factors', tags: ['portal'], security: portalSecurity, response: { 200: factorListSchema, ...problems } },
    },
    async (request, reply) => {
      void reply.header('Cache-Control', 'no-store');
      const { factors, recoveryCodesLeft } = await listFactors(db, await portalAccountOf(db, portalPrincipal(request)));
      return { items: factors.map((factor) => ({ ...factor, kind: factor.kind as 'totp', createdAt: factor.createdAt.toISOString(), lastUsedAt: factor.lastUsedAt?.toISOString() ?? null })), recoveryCodesLeft };
    },
  );

  typed.post(
    '/portal/account/second-factors/totp',
    {
      config: enrolment,
      schema: {
        operationId: 'startPortalTotpEnrolment',
        summary: 'Start setting up an authenticator app',
        description: 'A new secret (base32) and its otpauth:// URI for the QR code. Not a factor until confirmed with a code; starting again replaces an unconfirmed secret.',
        tags: ['portal'],
        security: portalSecurity,
        response: { 200: totpEnrolmentSchema, ...problems, ...problemResponses({ 409: 'CONFLICT: an authenticator app is already set up' }) },
      },
    },
    async (request, reply) => {
      void reply.header('Cache-Control', 'no-store');
      return startTotpEnrolment(db, box, await portalAccountOf(db, portalPrincipal(request)), clock());
    },
  );

  typed.post(
    '/portal/account/second-factors/totp/confirm',
    {
      config: enrolment,
      schema: {
        operationId: 'confirmPortalTotpEnrolment',
        summary: 'Finish setting up an authenticator app',
        description: 'The current code from the app. The first factor of an account comes with ten recovery codes, shown only in this answer.',
        tags: ['portal'],
        security: portalSecurity,
        body: z.strictObject({ code: totpCodeSchema }),
        response: { 200: z.object({ recoveryCodes: recoveryCodesSchema.nullable() }), ...problems, ...problemResponses({ 400: 'INVALID_CODE; VALIDATION_ERROR', 404: 'NOT_FOUND: no set-up in progress' }) },
      },
    },
    async (request, reply) => {
      void reply.header('Cache-Control', 'no-store');
      const principal = portalPrincipal(request);
      const result = await confirmTotpEnrolment(db, box, await portalAccountOf(db, principal), request.body.code, request.id, clock());
      await afterCredentialsChange(options.credentials, () => liftEnrolmentOnly(db, principal));
      return result;
    },
  );

  typed.delete(
    '/portal/account/second-factors/:factorId',
    {
      config: { auth: 'portal' },
      schema: {
        operationId: 'removePortalSecondFactor',
        summary: 'Remove one of your second factors',
        description: 'With the last factor go the recovery codes. Refused (409) for the last factor while the tenant requires one.',
        tags: ['portal'],
        security: portalSecurity,
        params: z.strictObject({ factorId: z.uuid({ error: 'must be a UUID' }) }),
        response: { 204: z.null().describe('Removed'), ...problems, ...problemResponses({ 404: 'NOT_FOUND', 409: 'CONFLICT: the last factor while the tenant requires one' }) },
      },
    },
    async (request, reply) => {
      const account = await portalAccountOf(db, portalPrincipal(request));
      await refuseRemovingLastRequiredFactor(db, account, request.params.factorId);
      await removeFactor(db, account, request.params.factorId, request.id, clock());
      return reply.code(204).send(null);
    },
  );

  typed.post(
    '/portal/account/recovery-codes',
    {
      config: { auth: 'portal' },
      schema: {
        operationId: 'regeneratePortalRecoveryCodes',
        summary: 'New recovery codes',
        description: 'Ten new one-time codes replace all earlier ones; shown only in this answer.',
        tags: ['portal'],
        security: portalSecurity,
        response: { 200: z.object({ recoveryCodes: recoveryCodesSchema }), ...problems, ...problemResponses({ 409: 'CONFLICT: no second factor set up' }) },
      },
    },
    async (request, reply) => {
      void reply.header('Cache-Control', 'no-store');
      return { recoveryCodes: await regenerateRecoveryCodes(db, await portalAccountOf(db, portalPrincipal(request)), request.id, clock()) };
    },
  );

  typed.put(
    '/portal/tenant/security',
    {
      config: { auth: 'portal-admin' },
      schema: {
        operationId: 'updatePortalTenantSecurity',
        summary: "Your organisation's sign-in rules",
        description: 'With `requireSecondFactor`, users without a second factor are sent to set one up at their next sign-in. Role PartnerAdmin.',
        tags: ['portal'],
        security: portalSecurity,
        body: z.strictObject({ requireSecondFactor: z.boolean() }),
        response: { 200: z.object({ requireSecondFactor: z.boolean() }), ...problems, ...problemResponses({ 403: 'FORBIDDEN (not PartnerAdmin), CSRF_REJECTED, ACCOUNT_DISABLED' }) },
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
