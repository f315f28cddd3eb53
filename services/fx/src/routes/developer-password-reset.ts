import { hashPassword, newPasswordSchema, resetRequestedMessage, resetTokenSchema } from '@svc/accounts';
import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FxExecutor } from '../db/executor.js';
import { developerEmailSchema } from '../domain/developers/developer-accounts.js';
import { confirmDeveloperPasswordReset, DEVELOPER_PASSWORD_RESET, requestDeveloperPasswordReset } from '../domain/developers/developer-password-resets.js';
import type { FxMailer } from '../domain/mail/fx-mailer.js';

export interface DeveloperPasswordResetOptions {
  db: FxExecutor;
  clock: () => Date;
  mailer: FxMailer;
}

const tags = ['developer'];
const REQUESTED = resetRequestedMessage(DEVELOPER_PASSWORD_RESET.validMinutes);
const { perAddressPerHour, perIpPerHour, validMinutes } = DEVELOPER_PASSWORD_RESET;

/**
 * The dashboard's "forgot password": registered inside the developer routes, so their refusal of
 * cross-site requests covers both. Neither needs a session.
 */
export const developerPasswordResetRoutes: FastifyPluginAsync<DeveloperPasswordResetOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/api/v1/developer/password/forgot',
    {
      schema: {
        operationId: 'developerForgotPassword',
        security: [],
        summary: 'Forgot password: mail a reset link; the same 202 whether or not the address has an account',
        description: `An existing account is mailed a link to /developers/reset#<token> in its language; it works once, within ${validMinutes} minutes. At most ${perAddressPerHour} requests per address and ${perIpPerHour} per IP address an hour.`,
        tags,
        body: z.strictObject({ email: developerEmailSchema }),
        response: {
          202: z.object({ message: z.string() }),
          ...problemResponses({ 400: 'Not an email address', 403: 'Cross-site request', 429: `More than ${perAddressPerHour} requests for the address or ${perIpPerHour} from the IP address in an hour (Retry-After)` }),
        },
      },
    },
    async (request, reply) => {
      await requestDeveloperPasswordReset(options.db, options.mailer, { email: request.body.email, ipAddress: request.ip }, options.clock());
      return reply.code(202).send(REQUESTED);
    },
  );

  typed.post(
    '/api/v1/developer/password/reset',
    {
      schema: {
        operationId: 'developerResetPassword',
        security: [],
        summary: 'Set a new password with the mailed link; every session of the account ends, and the account is mailed a notice',
        description: 'The token from the link’s fragment and the new password (the sign-up rules: 12 to 256 characters, not a common one). Clears a sign-in lockout; sign in with the new password afterwards.',
        tags,
        body: z.strictObject({ token: resetTokenSchema, password: newPasswordSchema }),
        response: {
          204: z.null(),
          ...problemResponses({
            400: 'A malformed token, or a password outside the rules',
            403: 'Cross-site request',
            404: 'RESET_LINK_NOT_FOUND: no such link',
            410: 'RESET_LINK_EXPIRED or RESET_LINK_USED',
          }),
        },
      },
    },
    async (request, reply) => {
      // Hashed before the transaction: Argon2id should not hold the link's row lock.
      const passwordHash = await hashPassword(request.body.password);
      await confirmDeveloperPasswordReset(options.db, options.mailer, { token: request.body.token, passwordHash }, options.clock());
      return reply.code(204).send(null);
    },
  );
};
