import type { RateLimitDecision, WindowState } from './rate-limiter.js';

/**
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset` (ISO 8601) for the most restrictive window,
 * once per prefix: fx sends both spellings its spec mentions.
 */
export function legacyRateLimitHeaders(decision: RateLimitDecision, prefixes: string[] = ['X-RateLimit-']): Record<string, string> {
  const headers: Record<string, string> = {};
  const limit = String(decision.limit);
  const remaining = String(decision.remaining);
  const reset = isoInstant(decision.resetAt);
  for (const prefix of prefixes) {
    headers[`${prefix}Limit`] = limit;
    headers[`${prefix}Remaining`] = remaining;
    headers[`${prefix}Reset`] = reset;
  }
  return headers;
}

// Every request of a window shares its reset instant: format it once per window, not per request.
let lastResetMs = Number.NaN;
let lastResetIso = '';
function isoInstant(at: Date): string {
  const ms = at.getTime();
  if (ms !== lastResetMs) {
    lastResetIso = at.toISOString();
    lastResetMs = ms;
  }
  return lastResetIso;
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
