import type { FastifyContextConfig, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponses } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import type { IdentityExecutor } from '../../db/schema.js';
import type { FactorAccount } from '../../domain/accounts/second-factors/accounts.js';
import { passkeyAuthenticationOptions, type RelyingParty } from '../../domain/accounts/second-factors/passkeys.js';
import { FRESH_AUTHENTICATION_SECONDS, reauthenticate, type ReauthenticationProof, type SessionRef } from '../../domain/accounts/reauthentication.js';
import { RATE_LIMITED } from '../openapi.js';
import { passkeyAssertionSchema, passkeyOptionsSchema, totpCodeSchema } from './second-factor-schemas.js';

export interface ReauthenticationRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  box: SecretBox;
  relyingParty: RelyingParty;
  accountOf: (request: FastifyRequest) => Promise<FactorAccount>;
  sessionOf: (request: FastifyRequest) => SessionRef;
  /** After the session's row changed: the portal empties its credential cache here and waits for the others. */
  afterReauthenticated: (change: () => Promise<void>) => Promise<void>;
  config: FastifyContextConfig;
  document: { tags: string[]; security: Record<string, string[]>[]; operationPrefix: string };
}

const reauthenticationBodySchema = z
  .union([
    z.strictObject({ password: z.string().min(1).max(256) }),
    z.strictObject({ code: totpCodeSchema }),
    z.strictObject({ passkey: passkeyAssertionSchema }),
  ])
  .meta({ id: 'ReauthenticationProof', description: 'Your password, the current code of your authenticator app, or a passkey answering the re-authentication options' });

const reauthenticatedSchema = z
  .object({
    authenticatedAt: z.iso.datetime({ offset: true }),
    freshUntil: z.iso.datetime({ offset: true }).meta({ description: 'Until then the sensitive actions are accepted without asking again' }),
  })
  .meta({ id: 'Reauthenticated' });

/**
 * `/account/reauthenticate` under the portal's and the console's prefix: the signed-in person gives
 * the password or a second factor again, and the sensitive actions accept the session for 5 minutes.
 */
export const reauthenticationRoutes: FastifyPluginAsync<ReauthenticationRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  const describe = (operation: string, summary: string, description: string) => ({
    operationId: `${options.document.operationPrefix}${operation}`,
    summary,
    description,
    tags: options.document.tags,
    security: options.document.security,
  });

  typed.post(
    '/account/reauthenticate/passkey-options',
    {
      config: options.config,
      schema: {
        ...describe('ReauthenticationPasskeyOptions', 'Start re-authenticating with a passkey', "Options for navigator.credentials.get() offering your own passkeys; the answer goes to POST …/account/reauthenticate as `passkey`."),
        response: { 200: passkeyOptionsSchema, ...problemResponses({ 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED, ACCOUNT_DISABLED', 429: RATE_LIMITED }) },
      },
    },
    async (request) => {
      const account = await options.accountOf(request);
      return passkeyAuthenticationOptions(db, options.relyingParty, { account: account.account, pendingSignInId: null }, clock());
    },
  );

  typed.post(
    '/account/reauthenticate',
    {
      config: options.config,
      schema: {
        ...describe(
          'Reauthenticate',
          'Confirm it is you',
          `Your password, an authenticator code or a passkey, given again in this session: for ${FRESH_AUTHENTICATION_SECONDS / 60} minutes the actions that answer 403 REAUTHENTICATION_REQUIRED (removing a second factor, new recovery codes, a password change, a new OAuth client, webhook endpoint changes, the organisation's sign-in rules) are accepted. Wrong answers count toward the sign-in lockout.`,
        ),
        body: reauthenticationBodySchema,
        response: {
          200: reauthenticatedSchema,
          ...problemResponses({
            400: 'INVALID_CODE; PASSKEY_REJECTED; VALIDATION_ERROR',
            401: 'UNAUTHENTICATED',
            403: 'WRONG_PASSWORD; CSRF_REJECTED; ACCOUNT_DISABLED',
            429: `ACCOUNT_LOCKED (Retry-After); or ${RATE_LIMITED}`,
          }),
        },
      },
    },
    async (request) => {
      const account = await options.accountOf(request);
      const proof: ReauthenticationProof = request.body;
      let authenticatedAt = clock();
      await options.afterReauthenticated(async () => {
        ({ authenticatedAt } = await reauthenticate(db, options.box, options.relyingParty, { account, session: options.sessionOf(request), proof, correlationId: request.id }, clock()));
      });
      return { authenticatedAt: authenticatedAt.toISOString(), freshUntil: new Date(authenticatedAt.getTime() + FRESH_AUTHENTICATION_SECONDS * 1000).toISOString() };
    },
  );
};
