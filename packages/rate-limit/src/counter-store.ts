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
  /** The current counts of the keys without counting (0 for a missing or expired key): what a dashboard shows. */
  peek?(keys: string[]): Promise<number[]>;
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

  peek(keys: string[]): Promise<number[]> {
    const now = this.clock();
    return Promise.resolve(keys.map((key) => {
      const entry = this.counters.get(key);
      return entry && entry.expiresAt > now ? entry.count : 0;
    }));
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
 * One round trip for a whole batch, atomic because Redis runs a script without interleaving
 * other commands. KEYS are the batch's distinct keys; ARGV holds, per key, its TTL then how many
 * requests of the batch count on it:
 *   for each key i:
 *     local count = redis.call('INCRBY', KEYS[i], by)       -- creates the key at `by` if missing
 *     if count == by or redis.call('PTTL', KEYS[i]) < 0 then -- new key, or one that lost its TTL
 *       redis.call('PEXPIRE', KEYS[i], ttl)                  -- expire with its window
 *     end
 *     counts[i] = count
 *   return counts
 */
const INCREMENT_BATCH_SCRIPT = `
local counts = {}
for i, key in ipairs(KEYS) do
  local by = tonumber(ARGV[2 * i])
  local count = redis.call('INCRBY', key, by)
  if count == by or redis.call('PTTL', key) < 0 then
    redis.call('PEXPIRE', key, ARGV[2 * i - 1])
  end
  counts[i] = count
end
return counts
`;

interface RedisWithRateLimitCommand extends Redis {
  svcIncrementBatch(numberOfKeys: number, ...keysThenTtlsAndCounts: (string | number)[]): Promise<number[]>;
}

interface PendingIncrement {
  counters: CounterIncrement[];
  resolve(counts: number[]): void;
  reject(error: unknown): void;
}

/**
 * Counters shared by every instance on one Redis; ioredis sends EVALSHA and falls back to EVAL once.
 * The increments asked for while the event loop handles one batch of I/O go to Redis together, in
 * one script call when that turn ends (setImmediate): a busy server makes one round trip (one write,
 * one reply) for many requests instead of one each. Each request still gets the count it would have
 * got alone, in the order it asked: a key counted n times in a batch is raised by n, and its k-th
 * request of the batch reads the new count minus n plus k.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisWithRateLimitCommand;
  private readonly prefix: string;
  private pending: PendingIncrement[] = [];

  constructor(redis: Redis, options: { prefix?: string } = {}) {
    if (!('svcIncrementBatch' in redis)) redis.defineCommand('svcIncrementBatch', { lua: INCREMENT_BATCH_SCRIPT });
    this.redis = redis as RedisWithRateLimitCommand;
    this.prefix = options.prefix ?? 'ratelimit:';
  }

  increment(counters: CounterIncrement[]): Promise<number[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ counters, resolve, reject });
    });
  }

  async peek(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const values = await this.redis.mget(...keys.map((key) => `${this.prefix}${key}`));
    return values.map((value) => (value === null ? 0 : Number(value)));
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    // The batch's distinct keys, in first-asked order, each with its TTL and how many requests count on it.
    const slots = new Map<string, { index: number; ttlMs: number; count: number }>();
    // Per request, per counter: its key's slot and its place among that key's requests.
    const places = batch.map(({ counters }) =>
      counters.map(({ key, ttlMs }) => {
        const fullKey = `${this.prefix}${key}`;
        let slot = slots.get(fullKey);
        if (!slot) {
          slot = { index: slots.size, ttlMs: Math.max(1, Math.ceil(ttlMs)), count: 0 };
          slots.set(fullKey, slot);
        }
        return { slot, ordinal: ++slot.count };
      }),
    );
    const ttlsAndCounts = [...slots.values()].flatMap(({ ttlMs, count }) => [ttlMs, count]);
    this.redis.svcIncrementBatch(slots.size, ...slots.keys(), ...ttlsAndCounts).then(
      (totals) => {
        for (let i = 0; i < batch.length; i++) {
          batch[i]!.resolve(places[i]!.map(({ slot, ordinal }) => Number(totals[slot.index]) - slot.count + ordinal));
        }
      },
      (error: unknown) => {
        for (const request of batch) request.reject(error);
      },
    );
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

  /** Read from the store that is counting now: the fallback while the primary fails. */
  peek(keys: string[]): Promise<number[]> {
    const store = this.lastFailed ? this.fallback : this.primary;
    return store.peek ? store.peek(keys) : Promise.resolve(keys.map(() => 0));
  }
}
