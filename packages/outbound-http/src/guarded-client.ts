import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type * as UndiciModule from 'undici';
import type { Dispatcher } from 'undici';
import { nonPublicReason } from './address-policy.js';
import { unbracket, type TargetPolicy } from './target-url.js';

export class BlockedTargetError extends Error {
  readonly code = 'ERR_BLOCKED_TARGET';
  constructor(host: string, address: string, reason: string) {
    super(`refused to connect to ${host} (${address}): ${reason}`);
    this.name = 'BlockedTargetError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for the socket that refuses non-public answers. Because it runs at
 * connect time for the very address the socket will use, a host that resolved to a
 * public address at registration and to 127.0.0.1 now (DNS rebinding) is refused.
 */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, []);
    for (const { address } of addresses) {
      const reason = nonPublicReason(address);
      if (reason) return callback(new BlockedTargetError(hostname, address, reason), []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

type Undici = typeof UndiciModule;
let undici: Promise<Undici> | undefined;
/** undici is loaded by the first outbound call, not at start: a process that has sent nothing has not paid for it. */
const loadUndici = (): Promise<Undici> => (undici ??= import('undici'));

/** Sockets per receiving host; a delivery worker's in-flight sends per endpoint should stay at or under it. */
export const MAX_SENDS_PER_HOST = 64;

/** The one undici dispatcher every outbound webhook uses. Redirects are never followed (undici's default). */
export async function createGuardedDispatcher(policy: TargetPolicy, options: { connectTimeoutMs?: number } = {}): Promise<Dispatcher> {
  const { Agent } = await loadUndici();
  return new Agent({
    connect: {
      timeout: options.connectTimeoutMs ?? 10_000,
      ...(policy.allowPrivateTargets ? {} : { lookup: guardedLookup }),
    },
    // Webhook receivers are many hosts with few requests each: do not hold sockets open long.
    keepAliveTimeout: 4_000,
    // Per origin: enough for a busy receiver (thousands of deliveries a second); workers keep
    // one endpoint's sends in flight under this (MAX_SENDS_PER_HOST), so none waits for a socket
    // while its time limit runs.
    connections: MAX_SENDS_PER_HOST,
  });
}

export interface DeliveryResult {
  /** HTTP status, or 0 when no response arrived (network error, timeout, refused target). */
  status: number;
  durationMs: number;
  /** Why there is no status, for logs and delivery records; never includes the body sent. */
  error?: string;
  /** The receiver's Retry-After on a 429 or 503, in ms (delay-seconds or an HTTP date). */
  retryAfterMs?: number;
}

// Every HTTP-date form starts with a day name (RFC 9110 §5.6.7); without this check Date.parse
// guesses at anything ('2030-01-01' → a wait of years, '-5' → May 2001).
const HTTP_DATE_START = /^(mon|tue|wed|thu|fri|sat|sun)/i;
// asctime (`Sun Nov  6 08:49:37 1994`) carries no zone and means GMT; Date.parse would read it as local time.
const ASCTIME_DATE = /^[a-z]{3} [a-z]{3} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/i;

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!HTTP_DATE_START.test(trimmed)) return undefined;
  const date = Date.parse(ASCTIME_DATE.test(trimmed) ? `${trimmed} GMT` : trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * POSTs a body once through the guarded dispatcher with a total time limit, reading at
 * most a few KB of the answer. Never throws for a network failure: the result says what
 * happened, so the delivery queue can record it and retry.
 */
export async function postOnce(options: {
  url: string;
  body: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  policy: TargetPolicy;
  timeoutMs: number;
  /** Names the sending service, e.g. `partner-services-identity-webhooks/1`. */
  userAgent?: string;
}): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(options.url);
  const host = unbracket(url.hostname);
  // An IP literal never goes through the lookup, so it is checked here.
  if (!options.policy.allowPrivateTargets && isIP(host)) {
    const reason = nonPublicReason(host);
    if (reason) return { status: 0, durationMs: 0, error: new BlockedTargetError(host, host, reason).message };
  }
  try {
    const { request } = await loadUndici();
    const response = await request(url, {
      method: 'POST',
      body: options.body,
      headers: { 'user-agent': options.userAgent ?? 'partner-services-webhooks/1', ...options.headers },
      dispatcher: options.dispatcher,
      signal: AbortSignal.timeout(options.timeoutMs),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    // A few KB of the answer at most: a receiver cannot make us read (or hold) a large body.
    await response.body.dump({ limit: 4 * 1024 });
    const retryAfterMs = response.statusCode === 429 || response.statusCode === 503 ? parseRetryAfter(response.headers['retry-after']) : undefined;
    return { status: response.statusCode, durationMs: elapsed(), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const root = cause instanceof Error ? cause : (error as Error);
    const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
    return { status: 0, durationMs: elapsed(), error: timedOut ? `timed out after ${options.timeoutMs} ms` : root.message };
  }
}
