import { ValidationError } from '@svc/problem-json';

export const SCOPES = ['verifications', 'webhooks', 'evidence', 'reports'] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPES = 'verifications webhooks evidence reports';

/**
 * The scope each API area needs (the spec leaves it open). Matched on the path below
 * /api/partner/v1, so a route added later under one of these prefixes is covered on day one.
 */
const SCOPE_BY_PATH: [RegExp, Scope][] = [
  [/^\/verifications(\/|$)/, 'verifications'],
  // Where the capture of verifications may be embedded.
  [/^\/capture-settings$/, 'verifications'],
  [/^\/evidence\//, 'evidence'],
  [/^\/webhooks(\/|$)/, 'webhooks'],
  [/^\/reports\//, 'reports'],
];

export function scopeForPath(pathBelowBase: string): Scope | null {
  return SCOPE_BY_PATH.find(([pattern]) => pattern.test(pathBelowBase))?.[1] ?? null;
}

export function splitScopes(value: string): string[] {
  return value.split(' ').filter((scope) => scope.length > 0);
}

/** A space-delimited list of known scopes, deduplicated, in canonical order; null with the reason when invalid. */
export function normaliseScopes(value: string): { scopes: string } | { error: string } {
  const requested = splitScopes(value);
  if (requested.length === 0) return { error: 'must name at least one scope' };
  const unknown = requested.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) return { error: `unknown scope ${unknown.map((scope) => `"${scope}"`).join(', ')}; known scopes: ${SCOPES.join(' ')}` };
  return { scopes: SCOPES.filter((scope) => requested.includes(scope)).join(' ') };
}

export function parseAllowedScopes(value: string | undefined): string {
  const result = normaliseScopes(value ?? DEFAULT_SCOPES);
  if ('error' in result) throw new ValidationError(`allowedScopes ${result.error}.`, [{ path: 'allowedScopes', message: result.error }]);
  return result.scopes;
}
