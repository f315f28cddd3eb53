import type { IdentityMailer } from '../../domain/mail/identity-mailer.js';
import type { SecurityNotices } from '../../domain/mail/security-notices.js';
import type { FastifyContextConfig, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponses } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import type { IdentityExecutor } from '../../db/schema.js';
import type { FactorAccount } from '../../domain/accounts/second-factors/accounts.js';
import { confirmTotpEnrolment, listFactors, regenerateRecoveryCodes, removeFactor, startTotpEnrolment } from '../../domain/accounts/second-factors/factors.js';
import { RATE_LIMITED } from '../openapi.js';
import { passkeyRegistrationOptions, registerPasskey, renamePasskey, type RelyingParty } from '../../domain/accounts/second-factors/passkeys.js';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { factorListSchema, passkeyNameSchema, passkeyOptionsSchema, passkeyRegistrationSchema, recoveryCodesSchema, totpCodeSchema, totpEnrolmentSchema } from './second-factor-schemas.js';

export interface SecondFactorRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  box: SecretBox;
  /** Where passkeys are registered (WEBAUTHN_ORIGINS). */
  relyingParty: RelyingParty;
  /** The signed-in account whose factors these are. */
  accountOf: (request: FastifyRequest) => Promise<FactorAccount>;
  /** After the first factor is confirmed: the account's enrolment-only sessions become full ones. */
  afterEnrolled: (request: FastifyRequest) => Promise<void>;
  /** Refuses a removal the account's rules forbid (the last factor a tenant requires). */
  beforeRemoval?: (account: FactorAccount, factorId: string) => Promise<void>;
  /** Tells the account's own address about each change made here. */
  mailer: IdentityMailer;
  /** Route config for the routes an enrolment-only session may use, and for the others. */
  config: { enrolment: FastifyContextConfig; other: FastifyContextConfig };
  /** OpenAPI: operation ids `<operationPrefix>ListSecondFactors`…, in the partner or the staff document by their path. */
  document: { tags: string[]; security: Record<string, string[]>[]; operationPrefix: string };
}

const FRESH = 'Needs the password or a second factor given in the last 5 minutes (POST …/account/reauthenticate).';
const FRESH_403 = 'REAUTHENTICATION_REQUIRED: no password or second factor in the last 5 minutes; CSRF_REJECTED, ACCOUNT_DISABLED';

const problems = problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED, ACCOUNT_DISABLED', 429: RATE_LIMITED });

/**
 * The signed-in account's own second factors under `/account/…` of the prefix it is registered
 * at: the portal's users and the console's staff get the same routes from here.
 */
export const secondFactorRoutes: FastifyPluginAsync<SecondFactorRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, box, clock, accountOf } = options;
  const noticesFor = (request: FastifyRequest): SecurityNotices => ({ mailer: options.mailer, language: request.headers['accept-language'] });
  const describe = (operation: string, summary: string, description?: string) => ({
    operationId: `${options.document.operationPrefix}${operation.charAt(0).toUpperCase()}${operation.slice(1)}`,
    summary,
    ...(description ? { description } : {}),
    tags: options.document.tags,
    security: options.document.security,
  });

  typed.get(
    '/account/second-factors',
    { config: options.config.enrolment, schema: { ...describe('listSecondFactors', 'Your second factors'), response: { 200: factorListSchema, ...problems } } },
    async (request) => {
      const { factors, recoveryCodesLeft } = await listFactors(db, await accountOf(request));
      return { items: factors.map((factor) => ({ ...factor, kind: factor.kind as 'totp' | 'passkey', createdAt: factor.createdAt.toISOString(), lastUsedAt: factor.lastUsedAt?.toISOString() ?? null })), recoveryCodesLeft };
    },
  );

  typed.post(
    '/account/second-factors/totp',
    {
      config: options.config.enrolment,
      schema: {
        ...describe('startTotpEnrolment', 'Start setting up an authenticator app', 'A new secret (base32) and its otpauth:// URI for the QR code. Not a factor until confirmed with a code; starting again replaces an unconfirmed secret.'),
        response: { 200: totpEnrolmentSchema, ...problems, ...problemResponses({ 409: 'CONFLICT: an authenticator app is already set up' }) },
      },
    },
    async (request) => {
      return startTotpEnrolment(db, box, await accountOf(request), clock());
    },
  );

  typed.post(
    '/account/second-factors/totp/confirm',
    {
      config: options.config.enrolment,
      schema: {
        ...describe('confirmTotpEnrolment', 'Finish setting up an authenticator app', 'The current code from the app. The first factor of an account comes with ten recovery codes, shown only in this answer.'),
        body: z.strictObject({ code: totpCodeSchema }),
        response: { 200: z.object({ recoveryCodes: recoveryCodesSchema.nullable() }), ...problems, ...problemResponses({ 400: 'INVALID_CODE; VALIDATION_ERROR', 404: 'NOT_FOUND: no set-up in progress' }) },
      },
    },
    async (request) => {
      const result = await confirmTotpEnrolment(db, box, await accountOf(request), request.body.code, request.id, clock(), noticesFor(request));
      await options.afterEnrolled(request);
      return result;
    },
  );

  typed.post(
    '/account/second-factors/passkeys/options',
    {
      config: options.config.enrolment,
      schema: {
        ...describe('startPasskeyRegistration', 'Start adding a passkey', 'Options for navigator.credentials.create(): a discoverable credential, so the passkey can later sign in alone. Passkeys already registered are excluded.'),
        response: { 200: passkeyOptionsSchema, ...problems },
      },
    },
    async (request) => {
      return passkeyRegistrationOptions(db, options.relyingParty, await accountOf(request), clock());
    },
  );

  typed.post(
    '/account/second-factors/passkeys',
    {
      config: options.config.enrolment,
      schema: {
        ...describe('registerPasskey', 'Add a passkey', "The browser's answer to the options (attestation is not asked for). The passkey becomes a second factor; the first factor of an account comes with ten recovery codes, shown only in this answer."),
        body: z.strictObject({ name: passkeyNameSchema.optional(), response: passkeyRegistrationSchema }),
        response: {
          201: z.object({ id: z.uuid(), recoveryCodes: recoveryCodesSchema.nullable() }),
          ...problems,
          ...problemResponses({ 400: 'PASSKEY_REJECTED: wrong origin, spent or expired challenge; VALIDATION_ERROR', 409: 'PASSKEY_ALREADY_REGISTERED: this credential is registered already (to any account)' }),
        },
      },
    },
    async (request, reply) => {
      const account = await accountOf(request);
      const now = clock();
      const factor = await registerPasskey(db, options.relyingParty, account, { response: request.body.response as RegistrationResponseJSON, name: request.body.name }, request.id, now, noticesFor(request));
      const { recoveryCodesLeft } = await listFactors(db, account);
      const recoveryCodes = recoveryCodesLeft > 0 ? null : await regenerateRecoveryCodes(db, account, request.id, now);
      await options.afterEnrolled(request);
      return reply.code(201).send({ id: factor.id, recoveryCodes });
    },
  );

  typed.patch(
    '/account/second-factors/passkeys/:factorId',
    {
      config: options.config.other,
      schema: {
        ...describe('renamePasskey', 'Rename one of your passkeys', 'The name shown in your list of passkeys: 1 to 60 characters on one line.'),
        params: z.strictObject({ factorId: z.uuid({ error: 'must be a UUID' }) }),
        body: z.strictObject({ name: passkeyNameSchema }),
        response: { 204: z.null().describe('Renamed'), ...problems, ...problemResponses({ 404: 'NOT_FOUND: no passkey of yours with this id' }) },
      },
    },
    async (request, reply) => {
      await renamePasskey(db, await accountOf(request), request.params.factorId, request.body.name, request.id, clock());
      return reply.code(204).send(null);
    },
  );

  typed.delete(
    '/account/second-factors/:factorId',
    {
      config: { ...options.config.other, freshAuthentication: true },
      schema: {
        ...describe('removeSecondFactor', 'Remove one of your second factors', `With the last factor go the recovery codes. Refused (409) for the last factor while one is required. ${FRESH}`),
        params: z.strictObject({ factorId: z.uuid({ error: 'must be a UUID' }) }),
        response: { 204: z.null().describe('Removed'), ...problems, ...problemResponses({ 403: FRESH_403, 404: 'NOT_FOUND', 409: 'CONFLICT: the last factor while one is required' }) },
      },
    },
    async (request, reply) => {
      const account = await accountOf(request);
      await options.beforeRemoval?.(account, request.params.factorId);
      await removeFactor(db, account, request.params.factorId, request.id, clock(), noticesFor(request));
      return reply.code(204).send(null);
    },
  );

  typed.post(
    '/account/recovery-codes',
    {
      config: { ...options.config.other, freshAuthentication: true },
      schema: {
        ...describe('regenerateRecoveryCodes', 'New recovery codes', `Ten new one-time codes replace all earlier ones; shown only in this answer. ${FRESH}`),
        response: { 200: z.object({ recoveryCodes: recoveryCodesSchema }), ...problems, ...problemResponses({ 403: FRESH_403, 409: 'CONFLICT: no second factor set up' }) },
      },
    },
    async (request) => {
      return { recoveryCodes: await regenerateRecoveryCodes(db, await accountOf(request), request.id, clock(), noticesFor(request)) };
    },
  );
};
