import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { problemResponses, UnauthenticatedError } from '@svc/problem-json';
import type { IdentityExecutor } from '../../db/schema.js';
import { pendingSignIns } from '../../db/schema-second-factors.js';
import { passkeyAuthenticationOptions, type RelyingParty } from '../../domain/accounts/second-factors/passkeys.js';
import { PENDING_SIGN_IN_PREFIX } from '../../domain/accounts/second-factors/staged-sign-in.js';
import { hashToken } from '@svc/accounts';
import { refuseCrossOrigin } from '../../plugins/authentication.js';
import { RATE_LIMITED } from '../openapi.js';
import { passkeyOptionsSchema } from './second-factor-schemas.js';

export interface PasskeySignInRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  relyingParty: RelyingParty;
  /** The cookie holding the pending sign-in token after a right password. */
  pendingCookie: string;
  allowedOrigins: readonly string[];
  /** OpenAPI: operation ids `<operationPrefix>PasskeySignInOptions`…, in the partner or the staff document by their path. */
  document: { tags: string[]; operationPrefix: string };
}

const problems = problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED: the pending sign-in is missing, expired or spent', 403: 'CSRF_REJECTED', 429: RATE_LIMITED });

/**
 * The challenges a passkey signs at sign-in, under the login path of the portal or the console:
 * one for a passkey alone (no account known yet), one bound to the pending sign-in of the second step.
 */
export const passkeySignInRoutes: FastifyPluginAsync<PasskeySignInRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock, relyingParty } = options;
  const describe = (operation: string, summary: string, description: string) => ({ operationId: `${options.document.operationPrefix}${operation}`, summary, description, tags: options.document.tags, security: [] });

  typed.post(
    '/passkey/options',
    {
      config: { auth: 'public' },
      schema: { ...describe('PasskeySignInOptions', 'Start signing in with a passkey alone', 'Options for navigator.credentials.get() without a user: the browser offers the discoverable passkeys it holds for this site.'), response: { 200: passkeyOptionsSchema, ...problems } },
    },
    async (request) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      return passkeyAuthenticationOptions(db, relyingParty, { account: null, pendingSignInId: null }, clock());
    },
  );

  typed.post(
    '/second-factor/passkey-options',
    {
      config: { auth: 'public' },
      schema: {
        ...describe('SecondStepPasskeyOptions', 'Start the second step with a passkey', "After a 202 from the login: options for navigator.credentials.get() offering the account's passkeys, bound to the pending sign-in (body, or its cookie). The answer goes to the second step as `passkey`."),
        body: z.strictObject({ pendingSignInToken: z.string().max(200).optional() }).optional(),
        response: { 200: passkeyOptionsSchema, ...problems },
      },
    },
    async (request) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const token = request.body?.pendingSignInToken ?? request.cookies[options.pendingCookie] ?? '';
      const now = clock();
      const [pending] = token.startsWith(PENDING_SIGN_IN_PREFIX)
        ? await db
            .select({ id: pendingSignIns.id, account: pendingSignIns.account })
            .from(pendingSignIns)
            .where(and(eq(pendingSignIns.tokenHash, hashToken(token)), isNull(pendingSignIns.usedAt), gt(pendingSignIns.expiresAt, now)))
        : [];
      if (!pending) throw new UnauthenticatedError('The sign-in has expired or was already completed: enter your password again.');
      return passkeyAuthenticationOptions(db, relyingParty, { account: pending.account, pendingSignInId: pending.id }, now);
    },
  );
};
