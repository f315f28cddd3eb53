import type { RateLimitDecision, WindowState } from './rate-limiter.js';

/**
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset` (ISO 8601) for the most restrictive window,
 * once per prefix: fx sends both spellings its spec mentions.
 */
export function legacyRateLimitHeaders(decision: RateLimitDecision, prefixes: string[] = ['X-RateLimit-']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const prefix of prefixes) {
    headers[`${prefix}Limit`] = String(decision.limit);
    headers[`${prefix}Remaining`] = String(decision.remaining);
    headers[`${prefix}Reset`] = decision.resetAt.toISOString();
  }
  return headers;
}

function secondsToReset(state: Pick<WindowState, 'resetAt'>, now: number): number {
  return Math.max(0, Math.ceil((state.resetAt.getTime() - now) / 1000));
}

/**
 * IETF draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` lists every window as
 * `"name";q=<quota>;w=<seconds>`, `RateLimit` gives the most restrictive window's remaining
 * quota `r` and seconds to reset `t`.
 */
export function draftRateLimitHeaders(decision: RateLimitDecision, now: number = Date.now()): Record<string, string> {
  const deciding =
    decision.windows.find((state) => state.limit === decision.limit && state.resetAt.getTime() === decision.resetAt.getTime()) ?? decision.windows[0];
  return {
    'RateLimit-Policy': decision.windows.map((state) => `"${state.name}";q=${state.limit};w=${Math.round(state.windowMs / 1000)}`).join(', '),
    RateLimit: deciding ? `"${deciding.name}";r=${decision.remaining};t=${secondsToReset(decision, now)}` : '',
  };
}
