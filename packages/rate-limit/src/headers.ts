import type { RateLimitDecision, WindowPolicy, WindowState } from './rate-limiter.js';

/**
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset` (ISO 8601) for the most restrictive window,
 * once per prefix: fx sends both spellings its spec mentions. Names are written lower-case,
 * as they go on the wire (see headerName).
 */
export function legacyRateLimitHeaders(decision: RateLimitDecision, prefixes: readonly string[] = ['X-RateLimit-'], into: Record<string, string> = {}): Record<string, string> {
  const limit = String(decision.limit);
  const remaining = String(decision.remaining);
  const reset = isoInstant(decision.resetAt);
  for (const prefix of prefixes) {
    const [limitName, remainingName, resetName] = legacyNames(prefix);
    into[limitName] = limit;
    into[remainingName] = remaining;
    into[resetName] = reset;
  }
  return into;
}

/**
 * A header name as Fastify stores it: lower-case, and interned (a property key of a literal).
 * Fastify lower-cases every name it is given; a name that already is comes back as the same
 * string, so no request allocates a new one or looks it up again in V8's string table to use it
 * as a key. Case-insensitive on the wire (RFC 9110), and HTTP/1.1 Fastify sends them lower-case anyway.
 */
function headerName(name: string): string {
  return Object.keys({ [name.toLowerCase()]: true })[0]!;
}

// Header names built once per prefix.
const namesByPrefix = new Map<string, readonly [string, string, string]>();
function legacyNames(prefix: string): readonly [string, string, string] {
  let names = namesByPrefix.get(prefix);
  if (!names) {
    names = [headerName(`${prefix}Limit`), headerName(`${prefix}Remaining`), headerName(`${prefix}Reset`)];
    namesByPrefix.set(prefix, names);
  }
  return names;
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
export function draftRateLimitHeaders(decision: RateLimitDecision, now: number = Date.now(), into: Record<string, string> = {}): Record<string, string> {
  const deciding =
    decision.windows.find((state) => state.limit === decision.limit && state.resetAt.getTime() === decision.resetAt.getTime()) ?? decision.windows[0];
  into['ratelimit-policy'] = policyHeader(decision.policy);
  into.ratelimit = deciding ? `"${deciding.name}";r=${decision.remaining};t=${secondsToReset(decision, now)}` : '';
  return into;
}

// The policy changes only with the windows: one value per policy array (see RateLimitDecision.policy).
const policyValues = new WeakMap<readonly WindowPolicy[], string>();
function policyHeader(policy: readonly WindowPolicy[]): string {
  let value = policyValues.get(policy);
  if (value === undefined) {
    value = policy.map((window) => `"${window.name}";q=${window.limit};w=${Math.round(window.windowMs / 1000)}`).join(', ');
    policyValues.set(policy, value);
  }
  return value;
}
