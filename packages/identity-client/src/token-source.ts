import { apiErrorFrom } from '@svc/client-core';
import type { Dispatcher } from 'undici';
import { fetch as undiciFetch } from 'undici';
import type { TokenResponse } from './types.js';

export interface TokenSourceOptions {
  /** The token endpoint, e.g. `https://identity.example/api/partner/v1/oauth/token`. */
  tokenUrl: string;
  clientId: string;
  /** The mutual-TLS connection pool holding the client's certificate: the token is bound to it. */
  dispatcher: Dispatcher;
  /** Space-separated scopes to ask for; unset: every scope the client is allowed. */
  scope?: string;
  /** Seconds before expiry at which a token is replaced (default 60, at most a fifth of its lifetime). */
  refreshMarginSeconds?: number;
  /** The clock, in milliseconds; for tests of expiry. */
  now?: () => number;
}

/**
 * Client-credentials tokens over mutual TLS (RFC 8705), cached and replaced shortly before
 * they expire, so no call ever goes out with a token about to lapse. Concurrent callers share
 * one token request.
 */
export class TokenSource {
  #cached: { accessToken: string; refreshAt: number } | null = null;
  #pending: Promise<string> | null = null;
  readonly #options: TokenSourceOptions;
  readonly #now: () => number;

  constructor(options: TokenSourceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** A valid access token: the cached one, or a new one when it is near expiry. */
  async accessToken(): Promise<string> {
    if (this.#cached && this.#now() < this.#cached.refreshAt) return this.#cached.accessToken;
    this.#pending ??= this.#request().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  /** Drops the cached token (after a 401, or when the client certificate changes). */
  invalidate(): void {
    this.#cached = null;
  }

  async #request(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.#options.clientId });
    if (this.#options.scope) form.set('scope', this.#options.scope);
    const issuedAt = this.#now();
    const response = await undiciFetch(this.#options.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      dispatcher: this.#options.dispatcher,
    });
    if (!response.ok) throw await apiErrorFrom({ method: 'POST', url: this.#options.tokenUrl }, response);
    const token = (await response.json()) as TokenResponse;
    const margin = Math.min(this.#options.refreshMarginSeconds ?? 60, token.expires_in / 5);
    this.#cached = { accessToken: token.access_token, refreshAt: issuedAt + (token.expires_in - margin) * 1000 };
    return token.access_token;
  }
}
