import type { Redis } from 'ioredis';

export interface CounterIncrement {
  key: string;
  /** Time until the key's window ends (plus slack); set when the key is created. */
  ttlMs: number;
}

/** Increments every key by one in a single atomic step and returns the new counts, in order. */
export interface CounterStore {
  increment(counters: CounterIncrement[]): Promise<number[]>;
  /** The same, answered at once: only a store that needs no round trip has it (the limiter then decides without a promise). */
  incrementNow?(counters: CounterIncrement[]): number[];
  readonly kind: 'memory' | 'redis' | 'database';
}

/** One process's counters. Expired keys are swept on a timer so the map never grows without bound. */
export class MemoryCounterStore implements CounterStore {
  readonly kind = 'memory' as const;
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  private readonly clock: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: { clock?: () => number; sweepIntervalMs?: number } = {}) {
    this.clock = options.clock ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  increment(counters: CounterIncrement[]): Promise<number[]> {
    return Promise.resolve(this.incrementNow(counters));
  }

  incrementNow(counters: CounterIncrement[]): number[] {
    const now = this.clock();
    const counts = new Array<number>(counters.length);
    for (let i = 0; i < counters.length; i++) {
      const { key, ttlMs } = counters[i]!;
      const existing = this.counters.get(key);
      if (!existing || existing.expiresAt <= now) {
        this.counters.set(key, { count: 1, expiresAt: now + ttlMs });
        counts[i] = 1;
      } else {
        counts[i] = ++existing.count;
      }
    }
    return counts;
  }

  /** Number of live keys, for tests and metrics. */
  get size(): number {
    return this.counters.size;
  }

  sweep(): void {
    const now = this.clock();
    for (const [key, entry] of this.counters) if (entry.expiresAt <= now) this.counters.delete(key);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.counters.clear();
  }
}

/*
 * One round trip, atomic because Redis runs a script without interleaving other commands:
 *   for each key i:
 *     local count = redis.call('INCR', KEYS[i])            -- creates the key at 1 if missing
 *     if count == 1 or redis.call('PTTL', KEYS[i]) < 0 then -- new key, or one that lost its TTL
 *       redis.call('PEXPIRE', KEYS[i], ARGV[i])           -- expire with its window
 *     end
 *     counts[i] = count
 *   return counts
 */
const INCREMENT_WINDOWS_SCRIPT = `
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 or redis.call('PTTL', key) < 0 then
    redis.call('PEXPIRE', key, ARGV[i])
  end
  counts[i] = count
end
return counts
`;

interface RedisWithRateLimitCommand extends Redis {
  svcIncrementWindows(numberOfKeys: number, ...keysThenTtls: (string | number)[]): Promise<number[]>;
}

/** Counters shared by every instance on one Redis; ioredis sends EVALSHA and falls back to EVAL once. */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisWithRateLimitCommand;
  private readonly prefix: string;

  constructor(redis: Redis, options: { prefix?: string } = {}) {
    if (!('svcIncrementWindows' in redis)) redis.defineCommand('svcIncrementWindows', { lua: INCREMENT_WINDOWS_SCRIPT });
    this.redis = redis as RedisWithRateLimitCommand;
    this.prefix = options.prefix ?? 'ratelimit:';
  }

  async increment(counters: CounterIncrement[]): Promise<number[]> {
    const keys = counters.map((counter) => `${this.prefix}${counter.key}`);
    const ttls = counters.map((counter) => Math.max(1, Math.ceil(counter.ttlMs)));
    const counts = await this.redis.svcIncrementWindows(keys.length, ...keys, ...ttls);
    return counts.map(Number);
  }
}

/**
 * Uses the primary store (Redis) and, while it fails, the fallback (memory), so a Redis
 * outage degrades limits to per-instance instead of failing requests. `degraded` says which
 * one answered last, for health checks.
 */
export class FallbackCounterStore implements CounterStore {
  private lastFailed = false;

  constructor(
    private readonly primary: CounterStore,
    private readonly fallback: CounterStore,
  ) {}

  get kind(): CounterStore['kind'] {
    return this.primary.kind;
  }

  get degraded(): boolean {
    return this.lastFailed;
  }

  async increment(counters: CounterIncrement[]): Promise<number[]> {
    try {
      const counts = await this.primary.increment(counters);
      this.lastFailed = false;
      return counts;
    } catch {
      this.lastFailed = true;
      return this.fallback.increment(counters);
    }
  }
}
