import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ValidationError } from '@svc/problem-json';
import { nonPublicReason } from './address-policy.js';

export const MAX_TARGET_URL_LENGTH = 500;

export interface TargetPolicy {
  /** Development and tests only: allows http:// and private/loopback targets. */
  allowPrivateTargets: boolean;
}

export class TargetUrlError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TargetUrlError';
  }
}

/** IPv6 literals arrive bracketed in URL.hostname. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Checks a webhook target when it is registered: syntax, scheme, length, no credentials,
 * and every address the host resolves to must be public. Delivery checks again against
 * the address actually connected to (see createGuardedDispatcher), because DNS can
 * change between now and then. Returns the normalised URL.
 */
export async function validateTargetUrl(input: string, policy: TargetPolicy, resolve: typeof lookup = lookup): Promise<string> {
  if (input.length > MAX_TARGET_URL_LENGTH) throw new TargetUrlError(`must be at most ${MAX_TARGET_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new TargetUrlError('is not a valid absolute URL');
  }
  const allowedSchemes = policy.allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
  if (!allowedSchemes.includes(url.protocol)) throw new TargetUrlError(policy.allowPrivateTargets ? 'must use https:// or http://' : 'must use https://');
  if (url.username || url.password) throw new TargetUrlError('must not contain credentials');
  if (url.hash) throw new TargetUrlError('must not contain a fragment');
  if (policy.allowPrivateTargets) return url.toString();

  const host = unbracket(url.hostname);
  if (isIP(host)) {
    const reason = nonPublicReason(host);
    if (reason) throw new TargetUrlError(`must be a public address (${host} is ${reason})`);
    return url.toString();
  }
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    throw new TargetUrlError(`must be a public host name (${host} is local)`);
  }
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host, { all: true, verbatim: true });
  } catch {
    throw new TargetUrlError(`host ${host} does not resolve`);
  }
  for (const { address } of addresses) {
    const reason = nonPublicReason(address);
    if (reason) throw new TargetUrlError(`must be a public host (${host} resolves to ${address}, ${reason})`);
  }
  return url.toString();
}

/** validateTargetUrl for a URL a client sent: an unusable one is the client's 400, naming the field it came in. */
export async function validateTargetUrlField(input: string, policy: TargetPolicy, field: { name: string; path: string }): Promise<string> {
  try {
    return await validateTargetUrl(input, policy);
  } catch (error) {
    if (error instanceof TargetUrlError) throw new ValidationError(`${field.name} ${error.reason}.`, [{ path: field.path, message: error.reason }]);
    throw error;
  }
}
