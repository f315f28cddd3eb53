import type { FastifyContextConfig, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponses } from '@svc/problem-json';
import type { IdentityExecutor } from '../../db/schema.js';
import type { FactorAccount } from '../../domain/accounts/second-factors/accounts.js';
import { MAIL_LANGUAGES } from '../../domain/mail/identity-mails.js';
import { rememberPreferredLanguage } from '../../domain/mail/security-notices.js';
import { RATE_LIMITED } from '../openapi.js';

export interface AccountLanguageRouteOptions {
  db: IdentityExecutor;
  accountOf: (request: FastifyRequest) => Promise<FactorAccount>;
  config: FastifyContextConfig;
  document: { tags: string[]; security: Record<string, string[]>[]; operationPrefix: string };
}

/**
 * `PUT /account/language` under the portal's and the console's prefix: the web apps call it when
 * someone switches language while signed in (and after a passkey sign-in, which carries no
 * password form), so the account's later mails are written in the language last chosen.
 */
export const accountLanguageRoutes: FastifyPluginAsync<AccountLanguageRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().put(
    '/account/language',
    {
      config: options.config,
      schema: {
        operationId: `${options.document.operationPrefix}SetAccountLanguage`,
        summary: 'The language of your mails',
        description: 'Password resets, security notices and operational notices to this account are written in this language from now on. The web apps set it when you switch language while signed in; a sign-in with a password sets it from the page too.',
        tags: options.document.tags,
        security: options.document.security,
        body: z.strictObject({ language: z.enum(MAIL_LANGUAGES) }),
        response: {
          204: z.null().describe('Remembered'),
          ...problemResponses({ 400: 'VALIDATION_ERROR: not one of the languages mails are written in', 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED, ACCOUNT_DISABLED', 429: RATE_LIMITED }),
        },
      },
    },
    async (request, reply) => {
      await rememberPreferredLanguage(options.db, await options.accountOf(request), request.body.language);
      return reply.code(204).send(null);
    },
  );
};
