import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { nonPublicReason } from './address-policy.js';
import { BlockedTargetError, parseRetryAfter } from './guarded-client.js';
import { unbracket, type TargetPolicy } from './target-url.js';

export interface FetchResult {
  /** HTTP status, or 0 when no response arrived (network error, timeout, refused target, body over the limit). */
  status: number;
  durationMs: number;
  /** The body as text (at most maxBytes), when a response arrived. */
  body?: string;
  contentType?: string;
  /** Why there is no status; never includes the URL (its query may carry a key). */
  error?: string;
  /** Retry-After on a 429 or 503, in ms. */
  retryAfterMs?: number;
}

/**
 * GETs a URL once through the guarded dispatcher (no redirects followed, private addresses
 * refused unless the policy allows them) with a total time limit, reading at most maxBytes
 * of the answer. Never throws for a network failure: the result says what happened.
 */
export async function getOnce(options: {
  url: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  policy: TargetPolicy;
  timeoutMs: number;
  /** Names the fetching service, e.g. `partner-services-fx-sources/1`. */
  userAgent: string;
  maxBytes: number;
}): Promise<FetchResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(options.url);
  const host = unbracket(url.hostname);
  const allowedSchemes = options.policy.allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
  if (!allowedSchemes.includes(url.protocol)) return { status: 0, durationMs: 0, error: `refused ${url.protocol} (https:// only)` };
  // An IP literal never goes through the dispatcher's lookup, so it is checked here.
  if (!options.policy.allowPrivateTargets && isIP(host)) {
    const reason = nonPublicReason(host);
    if (reason) return { status: 0, durationMs: 0, error: new BlockedTargetError(host, host, reason).message };
  }
  try {
    const { request } = await import('undici');
    const response = await request(url, {
      method: 'GET',
      headers: { 'user-agent': options.userAgent, accept: 'application/json, text/csv;q=0.9, */*;q=0.5', ...options.headers },
      dispatcher: options.dispatcher,
      signal: AbortSignal.timeout(options.timeoutMs),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > options.maxBytes) {
        response.body.destroy();
        return { status: 0, durationMs: elapsed(), error: `answer larger than ${options.maxBytes} bytes` };
      }
      chunks.push(chunk);
    }
    const retryAfterMs = response.statusCode === 429 || response.statusCode === 503 ? parseRetryAfter(response.headers['retry-after']) : undefined;
    const contentType = response.headers['content-type'];
    return {
      status: response.statusCode,
      durationMs: elapsed(),
      body: Buffer.concat(chunks).toString('utf8'),
      ...(typeof contentType === 'string' ? { contentType } : {}),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const root = cause instanceof Error ? cause : (error as Error);
    const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
    return { status: 0, durationMs: elapsed(), error: timedOut ? `timed out after ${options.timeoutMs} ms` : root.message };
  }
}
