import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PENDING_SIGN_IN_SECONDS } from '../../domain/accounts/second-factors/staged-sign-in.js';

/** The body of a sign-in that issued a session (a password alone, the second step, an accepted invitation). */
export const sessionIssuedSchema = z.object({
  sessionToken: z.string(),
  expiresAt: z.iso.datetime({ offset: true }),
  enrolmentOnly: z.boolean().meta({ description: "A second factor is required (by the tenant, or of every operator) and this account has none yet: the session may only set one up (every other route answers 403 SECOND_FACTOR_ENROLMENT_REQUIRED)" }),
});

/** The answer to a right password when a second step is owed (the portal's and the console's login). */
export const secondFactorRequiredSchema = z.object({ secondFactorRequired: z.literal(true), pendingSignInToken: z.string(), expiresAt: z.iso.datetime({ offset: true }) });

type SignIn = { kind: 'session'; sessionToken: string; expiresAt: Date; enrolmentOnly: boolean } | { kind: 'second-factor'; pendingSignInToken: string; expiresAt: Date };

export interface SignInCookies {
  session: { name: string; options: CookieSerializeOptions; maxAge: number };
  /** Scoped to the login path: the pending token opens nothing but the second step. */
  pending: { name: string; options: CookieSerializeOptions };
}

/** The portal's and the console's answer to a password: 202 and a pending cookie when a second step is owed, else the session. */
export function replyWithSignIn(reply: FastifyReply, signIn: SignIn, cookies: SignInCookies) {
  if (signIn.kind === 'second-factor') {
    void reply.setCookie(cookies.pending.name, signIn.pendingSignInToken, { ...cookies.pending.options, maxAge: PENDING_SIGN_IN_SECONDS });
    return reply.code(202).send({ secondFactorRequired: true as const, pendingSignInToken: signIn.pendingSignInToken, expiresAt: signIn.expiresAt.toISOString() });
  }
  void reply.clearCookie(cookies.pending.name, cookies.pending.options).setCookie(cookies.session.name, signIn.sessionToken, { ...cookies.session.options, maxAge: cookies.session.maxAge });
  return reply.send({ sessionToken: signIn.sessionToken, expiresAt: signIn.expiresAt.toISOString(), enrolmentOnly: signIn.enrolmentOnly });
}

/**
 * The language a sign-in remembers for the account's mails: the request's Accept-Language (the
 * web apps send the page's language), narrowed to one identity writes; none when the header is absent.
 */
export function signInLanguage(request: FastifyRequest, mailer: { languageOf(requested: string | null | undefined): string }): string | undefined {
  const header = request.headers['accept-language'];
  return header ? mailer.languageOf(header) : undefined;
}
