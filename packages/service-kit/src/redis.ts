import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

/**
 * Connects to REDIS_URL and proves the connection at start (fail fast with a readable
 * message), then lets ioredis reconnect on its own for the life of the process: a Redis
 * blip later degrades health instead of crashing the service.
 */
export async function connectRedis(url: string, options: { connectTimeoutMs?: number } = {}): Promise<Redis> {
  // Loaded here, not at the top: the embedded default has no Redis and need not pay for the module at start.
  // Through require, not import: OpenTelemetry's ioredis instrumentation patches the module as require loads it.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis };
  const redis = new RedisClient(url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    // Fail commands fast while disconnected, so a request never hangs on a dead Redis.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
  });
  // Without a listener ioredis prints every reconnection error as unhandled.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Cannot reach Redis at REDIS_URL (${redactUrl(url)}): ${(error as Error).message}`);
  }
  return redis;
}

export async function pingRedis(redis: Redis, timeoutMs = 1000): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
    });
    return (await Promise.race([redis.ping(), timeout])) === 'PONG';
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** user:password@ removed, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
