import { randomUUID } from 'node:crypto';
import { throwOnError } from '@svc/client-core';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { Agent } from 'undici';
import { fetchThrough } from './mtls-fetch.js';
import { TokenSource } from './token-source.js';
import type { paths } from './types.js';

export const PARTNER_API_BASE = '/api/partner/v1';

export interface IdentityClientOptions {
  /** The service's origin, e.g. `https://identity.example.com` (no path). */
  baseUrl: string;
  /** The OAuth client id the portal showed when the certificate was registered. */
  clientId: string;
  /** The client certificate (PEM) registered for `clientId`, and its private key (PEM). */
  certificate: string | Buffer;
  privateKey: string | Buffer;
  /** Extra trusted CA certificates (PEM) for the server's certificate, e.g. a development CA. */
  ca?: string | Buffer | (string | Buffer)[];
  /** Space-separated scopes to ask for; unset: all the client is allowed. */
  scope?: string;
  /** Seconds before expiry at which the token is replaced (default 60). */
  refreshMarginSeconds?: number;
  /** The clock used for token expiry, in milliseconds. */
  now?: () => number;
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every call that changes something carries an Idempotency-Key, generated here unless the
 * caller set one: a retry of the same call (by the caller, with the same key) then cannot
 * create a second case. Pass your own key (e.g. your order id) to make retries across process
 * restarts safe too.
 */
const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (UNSAFE_METHODS.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', randomUUID());
    return request;
  },
};

export interface IdentityClient {
  /** The typed API (openapi-fetch): `api.GET('/api/partner/v1/verifications/{caseId}', { params: { path: { caseId } } })`. */
  api: Client<paths>;
  /** The token source: `accessToken()` for your own calls, `invalidate()` to force a new one. */
  tokens: TokenSource;
  /** Closes the mutual-TLS connections. */
  close(): Promise<void>;
}

/**
 * A partner's client for the identity API: mutual TLS with the registered certificate, a
 * certificate-bound access token acquired and refreshed on its own, an Idempotency-Key on
 * each changing call, and errors thrown as ApiError with the problem's `code`.
 */
export function createIdentityClient(options: IdentityClientOptions): IdentityClient {
  const agent = new Agent({ connect: { cert: options.certificate, key: options.privateKey, ...(options.ca ? { ca: options.ca } : {}) } });
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const tokens = new TokenSource({
    tokenUrl: `${baseUrl}${PARTNER_API_BASE}/oauth/token`,
    clientId: options.clientId,
    dispatcher: agent,
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.refreshMarginSeconds !== undefined ? { refreshMarginSeconds: options.refreshMarginSeconds } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const api = createClient<paths>({ baseUrl, fetch: fetchThrough(agent) });
  api.use(
    {
      async onRequest({ request }) {
        if (!request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${await tokens.accessToken()}`);
        return request;
      },
    },
    idempotencyKeys,
    throwOnError,
  );
  return { api, tokens, close: () => agent.close() };
}
