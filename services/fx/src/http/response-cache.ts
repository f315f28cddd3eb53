import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface CachedResponse {
  etag: string;
  /**
   * The JSON as UTF-8 bytes, serialized and encoded once per data change rather than once per
   * request (a string body would be measured and encoded again by every response's write).
   */
  body: Buffer;
}

export const CACHE_INVALIDATION_CHANNEL = 'fx:cache:invalidate';

/**
 * Public responses computed once per data change. Every write calls `invalidate()`, which
 * clears this instance and, with Redis, publishes so other instances clear theirs too.
 * With Redis, this instance caches only while it is subscribed: a write elsewhere while the
 * subscription is lost (Redis stopped, restarted, unreachable) would never reach it, so from the
 * moment the connection closes it forgets what it holds and computes every answer until it has
 * subscribed again. An outage costs database reads, never a stale rate.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private subscriber: Redis | null = null;
  /** True only while invalidations from other instances can reach this one. */
  private subscribed: boolean;

  constructor(private readonly redis: Redis | null) {
    this.subscribed = redis === null;
  }

  async start(): Promise<void> {
    if (!this.redis) return;
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    // Without a listener ioredis prints every reconnection error as unhandled.
    subscriber.on('error', () => undefined);
    subscriber.on('message', () => this.entries.clear());
    subscriber.on('close', () => {
      this.subscribed = false;
      this.entries.clear();
    });
    // ioredis resubscribes by itself after a reconnection; this SUBSCRIBE is answered after that
    // one, so caching resumes only once messages flow again (and what was cached before is gone).
    subscriber.on('ready', () => {
      subscriber.subscribe(CACHE_INVALIDATION_CHANNEL).then(
        () => {
          this.entries.clear();
          this.subscribed = subscriber.status === 'ready';
        },
        () => undefined,
      );
    });
    await subscriber.subscribe(CACHE_INVALIDATION_CHANNEL);
    this.subscribed = true;
  }

  async stop(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  async getOrCompute(key: string, compute: () => Promise<unknown>): Promise<CachedResponse> {
    const cached = this.entries.get(key);
    if (cached) return cached;
    const entry = serialisedResponse(await compute());
    if (this.subscribed) this.entries.set(key, entry);
    return entry;
  }

  /**
   * Clears this instance and tells the others. The write it follows has committed: a publish that
   * fails (Redis away) must not turn it into an error. The others cannot be caching then, unless
   * only this instance lost Redis; docs/operations.md names that case.
   */
  async invalidate(): Promise<void> {
    this.entries.clear();
    if (this.redis) await this.redis.publish(CACHE_INVALIDATION_CHANNEL, String(Date.now())).catch(() => undefined);
  }
}

/** A body serialised once with its strong ETag (a hash of the exact bytes), cached or not. */
export function serialisedResponse(body: unknown): CachedResponse {
  return taggedText(JSON.stringify(body));
}

/** Any text body (CSV, NDJSON) as UTF-8 bytes with its strong ETag. */
export function taggedText(text: string): CachedResponse {
  const bytes = Buffer.from(text, 'utf8');
  return { etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`, body: bytes };
}

/** True when an If-None-Match header names this ETag (weak comparison, lists and `*`). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}
