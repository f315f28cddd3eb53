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
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private subscriber: Redis | null = null;

  constructor(private readonly redis: Redis | null) {}

  async start(): Promise<void> {
    if (!this.redis) return;
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('message', () => this.entries.clear());
    await this.subscriber.subscribe(CACHE_INVALIDATION_CHANNEL);
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
    this.entries.set(key, entry);
    return entry;
  }

  async invalidate(): Promise<void> {
    this.entries.clear();
    if (this.redis) await this.redis.publish(CACHE_INVALIDATION_CHANNEL, String(Date.now()));
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
