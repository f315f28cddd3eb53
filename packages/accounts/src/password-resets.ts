import { randomBytes } from 'node:crypto';
import { ProblemError, RateLimitedError } from '@svc/problem-json';
import { z } from 'zod';
import { hashToken } from './credentials.js';

/**
 * The storage-agnostic half of "forgot password", shared by every service that has one: how a
 * link's token is made and stored, when a stored link may still be used, and the one answer a
 * request gets whether or not the address has an account. Where the requests are stored, which
 * account they reset and what else a reset ends stay with each service.
 */
export const RESET_TOKEN_BYTES = 32;

/** Identity's rules, for every service: 3 requests per address and 10 per IP address an hour; a link lives 60 minutes and works once. */
export const PASSWORD_RESET_RULES = { perAddressPerHour: 3, perIpPerHour: 10, validMinutes: 60 } as const;
const HOUR_MS = 3_600_000;

/** A service's stored requests of one scope since an instant: how many, and when the first of them was made. */
export interface ResetRequestWindow {
  requests: number;
  oldest: Date | null | undefined;
}

/** What one limit counts: the requests from an IP address, or those for an email address. */
export type ResetRequestScope = { ipAddress: string } | { email: string };

/**
 * Seconds until another request may be made, or null when it may be made now: `requests` is how
 * many were made in the last hour (known address or not, so the limit answers alike), `oldest` the first of them.
 */
function retryAfterSeconds(window: ResetRequestWindow, limit: number, now: Date): number | null {
  if (window.requests < limit) return null;
  return Math.max(1, Math.ceil(((window.oldest?.getTime() ?? now.getTime()) + HOUR_MS - now.getTime()) / 1000));
}

/**
 * Refuses a request beyond the limits with 429 and Retry-After, the IP address's limit first, then the
 * address's. `countSince` counts the service's own stored requests of a scope made after an instant
 * (every request, known address or not); each service keeps its own table, this the rule and the sentence.
 */
export async function refuseResetRequestsBeyondLimits(
  countSince: (scope: ResetRequestScope, since: Date) => Promise<ResetRequestWindow>,
  request: { email: string; ipAddress: string | null },
  now: Date,
): Promise<void> {
  const since = new Date(now.getTime() - HOUR_MS);
  const limits = [
    ...(request.ipAddress ? [{ scope: { ipAddress: request.ipAddress }, limit: PASSWORD_RESET_RULES.perIpPerHour, from: 'from this network' }] : []),
    { scope: { email: request.email }, limit: PASSWORD_RESET_RULES.perAddressPerHour, from: 'for this address' },
  ];
  for (const { scope, limit, from } of limits) {
    const retryAfter = retryAfterSeconds(await countSince(scope, since), limit, now);
    if (retryAfter !== null) throw new RateLimitedError(retryAfter, `Too many password reset requests ${from} in the last hour. Retry after ${Math.ceil(retryAfter / 60)} minutes.`);
  }
}

/** A link's token (CSPRNG, base64url) and the only form of it that is stored: its SHA-256. */
export function mintResetToken(): { token: string; tokenHash: string } {
  const token = randomBytes(RESET_TOKEN_BYTES).toString('base64url');
  return { token, tokenHash: hashToken(token) };
}

/** The token of a link's fragment: 32 random bytes, base64url. */
export const resetTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be the token from the link (43 characters)');

/** The one body of every accepted request, known address or not, so the answer tells nothing. */
export const resetRequestedMessage = (validMinutes: number) => ({
  message: `If the address has an account, a link to choose a new password is on its way. It works once, within ${validMinutes} minutes.`,
});

/** How a service answers a link that cannot be used: 404 when unknown, 410 Gone when it was valid once. */
const resetLinkProblems = (validMinutes: number) =>
  ({
    RESET_LINK_NOT_FOUND: [404, 'This password reset link is not valid: check that the whole link was copied, or ask for a new one on the sign-in page.'],
    RESET_LINK_EXPIRED: [410, `This password reset link has expired (links are valid for ${validMinutes} minutes): ask for a new one on the sign-in page.`],
    RESET_LINK_USED: [410, 'This password reset link was already used: sign in with the new password, or ask for a new link on the sign-in page.'],
  }) as const;

export type ResetLinkProblem = keyof ReturnType<typeof resetLinkProblems>;
const RESET_LINK_PROBLEMS = resetLinkProblems(PASSWORD_RESET_RULES.validMinutes);

/** A reset link that cannot be used, as every service answers it: 404 when unknown, 410 Gone when it was valid once. */
export class ResetLinkUnusableError extends ProblemError {
  constructor(code: ResetLinkProblem) {
    const [status, detail] = RESET_LINK_PROBLEMS[code];
    super({ status, code, title: status === 404 ? 'Not Found' : 'Reset Link Unusable', detail });
  }
}

/**
 * Why a stored link cannot be used, or null when it can. The row is found by the token's hash
 * (an index lookup on a digest, so the time taken says nothing about how much of a guess was right).
 */
export function resetLinkProblem(row: { usedAt: Date | null; expiresAt: Date } | undefined, now: Date): ResetLinkProblem | null {
  if (!row) return 'RESET_LINK_NOT_FOUND';
  if (row.usedAt) return 'RESET_LINK_USED';
  if (row.expiresAt.getTime() <= now.getTime()) return 'RESET_LINK_EXPIRED';
  return null;
}

/** When a link minted now stops working. */
export const resetExpiry = (now: Date, validMinutes: number) => new Date(now.getTime() + validMinutes * 60_000);
