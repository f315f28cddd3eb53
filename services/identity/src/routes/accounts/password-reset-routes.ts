import type { Mailer } from '@svc/mailer';
import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { hashPassword, newPasswordSchema, resetRequestedMessage, resetTokenSchema } from '@svc/accounts';
import { confirmPasswordReset, PASSWORD_RESET, requestPasswordReset } from '../../domain/accounts/password-resets.js';
import type { ResetAccounts } from '../../domain/accounts/password-reset-accounts.js';
import type { CredentialCache } from '../../domain/common/credential-cache.js';
import type { IdentityMails } from '../../domain/mail/identity-mails.js';
import { emailSchema } from '../../domain/tenants/tenants.js';
import { refuseCrossOrigin } from '../../plugins/authentication.js';
import { RATE_LIMITED } from '../openapi.js';
import { replyWithSignIn, secondFactorRequiredSchema, sessionIssuedSchema, type SignInCookies } from './sign-in-reply.js';

export interface PasswordResetRouteOptions {
  /** The portal's users or the console's staff: the routes are the same flow for either. */
  accounts: ResetAccounts;
  /** Where the two routes sit under the plugin's prefix: '/portal' beside the portal's login, '' beside the console's. */
  path: string;
  /** How the OpenAPI document names them: tags, an operationId stem, and the login route to finish a second step with. */
  document: { tags: string[]; operationNoun: string; secondStepRoute: string; loginRoute: string };
  db: IdentityExecutor;
  clock: () => Date;
  mailer: Mailer<IdentityMails>;
  credentials: CredentialCache;
  allowedOrigins: readonly string[];
  signInCookies: SignInCookies;
}

/** The one body of every accepted request, known address or not. */
export const resetRequestedSchema = z
  .object({ message: z.string() })
  .meta({ id: 'PasswordResetRequested', example: { message: 'If the address has an account, a link to choose a new password is on its way. It works once, within 60 minutes.' } });
export const RESET_REQUESTED = resetRequestedMessage(PASSWORD_RESET.validMinutes);

/** "Forgot password" and its confirmation, mounted once for the portal and once for the console. */
export const passwordResetRoutes: FastifyPluginAsync<PasswordResetRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { realm } = options.accounts;
  const { tags, operationNoun, secondStepRoute, loginRoute } = options.document;

  typed.post(
    `${options.path}/password-reset`,
    {
      config: { auth: 'public' },
      schema: {
        operationId: `request${operationNoun}PasswordReset`,
        summary: 'Forgot password: mail a reset link',
        description: `Always 202 with the same body, whether or not the address has an account. A link to /${realm}/password-reset#<token> is mailed to an existing active account; it works once, within ${PASSWORD_RESET.validMinutes} minutes. At most ${PASSWORD_RESET.perAddressPerHour} requests per address and ${PASSWORD_RESET.perIpPerHour} per IP address an hour.`,
        tags,
        security: [],
        body: z.strictObject({ email: emailSchema }),
        response: {
          202: resetRequestedSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR', 403: 'CSRF_REJECTED', 429: `RATE_LIMITED: more than ${PASSWORD_RESET.perAddressPerHour} requests for the address or ${PASSWORD_RESET.perIpPerHour} from the IP address in an hour (Retry-After); or ${RATE_LIMITED}` }),
        },
      },
    },
    async (request, reply) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      await requestPasswordReset(
        options.db,
        options.mailer,
        options.accounts,
        { email: request.body.email, ipAddress: request.ip, language: request.headers['accept-language'], correlationId: request.id },
        options.clock(),
      );
      return reply.code(202).send(RESET_REQUESTED);
    },
  );

  typed.post(
    `${options.path}/password-reset/confirm`,
    {
      config: { auth: 'public' },
      schema: {
        operationId: `confirm${operationNoun}PasswordReset`,
        summary: 'Set a new password with a reset link',
        description:
          `The token from the mailed link's fragment and the new password (the password rules of sign-up). Ends every session of the account, clears its lockout and mails a notice; then answers as ${loginRoute} does: a session, or 202 when the account's second factor is still owed.`,
        tags,
        security: [],
        body: z.strictObject({ token: resetTokenSchema, password: newPasswordSchema }),
        response: {
          200: sessionIssuedSchema,
          202: secondFactorRequiredSchema.describe(`The password is set; the account has a second factor: complete the sign-in with ${secondStepRoute}`),
          ...problemResponses({
            400: 'VALIDATION_ERROR: a malformed token, or a password that breaks the rules',
            403: 'ACCOUNT_DISABLED; CSRF_REJECTED',
            404: 'RESET_LINK_NOT_FOUND: no such link',
            410: 'RESET_LINK_EXPIRED or RESET_LINK_USED',
            429: RATE_LIMITED,
          }),
        },
      },
    },
    async (request, reply) => {
      if (request.headers.origin !== undefined) refuseCrossOrigin(request, options.allowedOrigins);
      const passwordHash = await hashPassword(request.body.password);
      const seen = options.credentials.changesSeen;
      const signIn = await confirmPasswordReset(
        options.db,
        options.mailer,
        options.accounts,
        { token: request.body.token, passwordHash, correlationId: request.id, userAgent: request.headers['user-agent'], ipAddress: request.ip, language: request.headers['accept-language'] },
        options.clock(),
      );
      // The ended sessions must stop working on this instance before the answer, as after a logout.
      options.credentials.clear();
      await options.credentials.announcementSeen(seen);
      return replyWithSignIn(reply, signIn, options.signInCookies);
    },
  );
};
