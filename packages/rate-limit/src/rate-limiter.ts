import type { CounterIncrement, CounterStore } from './counter-store.js';

/**
 * One fixed window of a policy, e.g. `{ name: 'minute', limit: 60, windowMs: 60_000 }`, or
 * a calendar month in UTC (`{ name: 'month', limit: 300, windowMs: 0, calendar: 'utc-month' }`,
 * for monthly quotas that reset at the first instant of the next month).
 */
export interface RateLimitWindow {
  name: string;
  limit: number;
  windowMs: number;
  calendar?: 'utc-month';
}

export interface WindowState {
  name: string;
  limit: number;
  windowMs: number;
  count: number;
  remaining: number;
  resetAt: Date;
}

/** One window of the policy as it stands now (a calendar month's length varies). */
export interface WindowPolicy {
  name: string;
  limit: number;
  windowMs: number;
}

/** The top-level fields describe the most restrictive window; `windows` lists every one in policy order. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAt: Date;
  retryAfterSeconds: number;
  windows: WindowState[];
  /**
   * The windows' names, limits and lengths: the very same array for every decision while they
   * stay the same, so what is derived from it alone (a policy header) can be kept per array.
   */
  policy: readonly WindowPolicy[];
}

export interface RateLimiter {
  readonly windows: readonly RateLimitWindow[];
  check(key: string): Promise<RateLimitDecision>;
  /** The decision, without a promise when the store answers at once (in memory): the per-request path. */
  decide(key: string): RateLimitDecision | Promise<RateLimitDecision>;
  /** The key's windows as they stand, without counting a request (the store must support peek). */
  peek(key: string): Promise<WindowState[]>;
}

export interface RateLimiterOptions {
  store: CounterStore;
  windows: RateLimitWindow[];
  keyPrefix: string;
  clock?: () => number;
}

// A key outlives its window by this much, so a count is never read after its key expired
// on a store whose clock runs slightly behind ours.
const EXPIRY_SLACK_MS = 1000;

function validateWindows(windows: RateLimitWindow[]): void {
  if (windows.length === 0) throw new Error('rate limiter: at least one window is required');
  const names = new Set<string>();
  for (const window of windows) {
    if (!window.name || /[\s:"]/.test(window.name)) throw new Error(`rate limiter: window name ${JSON.stringify(window.name)} must be non-empty without spaces, colons or quotes`);
    if (names.has(window.name)) throw new Error(`rate limiter: duplicate window name "${window.name}"`);
    names.add(window.name);
    if (!Number.isSafeInteger(window.limit) || window.limit < 1) throw new Error(`rate limiter: window "${window.name}" limit must be a positive integer`);
    if (window.calendar === undefined && (!Number.isSafeInteger(window.windowMs) || window.windowMs < 1)) {
      throw new Error(`rate limiter: window "${window.name}" windowMs must be a positive integer`);
    }
  }
}

/** The window containing `now`: its index (part of the store key), start and end. */
function windowAt(window: RateLimitWindow, now: number): { index: string | number; startMs: number; resetAtMs: number } {
  if (window.calendar === 'utc-month') {
    const date = new Date(now);
    const startMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    const resetAtMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    return { index: `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`, startMs, resetAtMs };
  }
  const index = Math.floor(now / window.windowMs);
  return { index, startMs: index * window.windowMs, resetAtMs: (index + 1) * window.windowMs };
}

/**
 * Which window answers for the whole decision: when denied, the exceeded window that
 * frees up last (waiting less would still be refused); when allowed, the one with the
 * fewest requests left, the shorter window on a tie.
 */
function mostRestrictive(states: WindowState[]): WindowState {
  const exceeded = states.filter((state) => state.count > state.limit);
  if (exceeded.length > 0) return exceeded.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
  return states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.windowMs < a.windowMs) ? b : a));
}

/**
 * Fixed windows aligned to the epoch (window index = floor(now / windowMs)): every
 * instance computes the same window and reset time without talking to the others, and a
 * test moves the injected clock instead of sleeping. All windows of a check are counted
 * in one store round trip.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  validateWindows(options.windows);
  if (!options.keyPrefix) throw new Error('rate limiter: keyPrefix is required');
  const windows = options.windows.map((window) => ({ ...window }));
  const clock = options.clock ?? Date.now;
  const store = options.store;
  const keyPrefixes = windows.map((window) => `${options.keyPrefix}:${window.name}:`);
  // Every request of a window shares its index, reset instant and length: worked out once per window.
  const current = windows.map((): ReturnType<typeof windowAt> => ({ index: '', startMs: Number.NaN, resetAtMs: Number.NaN }));
  // Rebuilt only when a window rolls over: a decision keeps the arrays it was counted under.
  let policy: readonly WindowPolicy[] = [];
  let resets: readonly Date[] = [];

  /** Moves each window to the one containing `now`; rebuilds policy and resets when any moved. */
  function windowsAt(now: number): void {
    let changed = false;
    for (let i = 0; i < windows.length; i++) {
      const slot = current[i]!;
      if (now >= slot.startMs && now < slot.resetAtMs) continue;
      Object.assign(slot, windowAt(windows[i]!, now));
      changed = true;
    }
    if (!changed) return;
    policy = windows.map((window, i) => ({ name: window.name, limit: window.limit, windowMs: window.calendar ? current[i]!.resetAtMs - current[i]!.startMs : window.windowMs }));
    resets = current.map((slot) => new Date(slot.resetAtMs));
  }

  function decisionOf(counts: number[], now: number, resets: readonly Date[], policy: readonly WindowPolicy[]): RateLimitDecision {
    const states = new Array<WindowState>(windows.length);
    for (let i = 0; i < windows.length; i++) {
      const window = windows[i]!;
      const count = counts[i] ?? 0;
      states[i] = { name: window.name, limit: window.limit, windowMs: policy[i]!.windowMs, count, remaining: Math.max(0, window.limit - count), resetAt: resets[i]! };
    }
    const deciding = mostRestrictive(states);
    const allowed = states.every((state) => state.count <= state.limit);
    return {
      allowed,
      limit: deciding.limit,
      remaining: deciding.remaining,
      resetAt: deciding.resetAt,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((deciding.resetAt.getTime() - now) / 1000)),
      windows: states,
      policy,
    };
  }

  function decide(key: string): RateLimitDecision | Promise<RateLimitDecision> {
    const now = clock();
    windowsAt(now);
    const increments = new Array<CounterIncrement>(windows.length);
    for (let i = 0; i < windows.length; i++) {
      const slot = current[i]!;
      increments[i] = { key: `${keyPrefixes[i]}${key}:${slot.index}`, ttlMs: slot.resetAtMs - now + EXPIRY_SLACK_MS };
    }
    if (store.incrementNow) return decisionOf(store.incrementNow(increments), now, resets, policy);
    // The windows may roll over while the store answers: the decision keeps the ones it counted in.
    const countedResets = resets;
    const countedPolicy = policy;
    return store.increment(increments).then((counts) => decisionOf(counts, now, countedResets, countedPolicy));
  }

  async function peek(key: string): Promise<WindowState[]> {
    if (!store.peek) throw new Error(`rate limiter: the ${store.kind} store cannot be read without counting`);
    const now = clock();
    const slots = windows.map((window) => windowAt(window, now));
    const counts = await store.peek(slots.map((slot, i) => `${keyPrefixes[i]}${key}:${slot.index}`));
    return windows.map((window, i) => {
      const count = counts[i] ?? 0;
      const slot = slots[i]!;
      return { name: window.name, limit: window.limit, windowMs: slot.resetAtMs - slot.startMs, count, remaining: Math.max(0, window.limit - count), resetAt: new Date(slot.resetAtMs) };
    });
  }

  return {
    windows,
    decide,
    peek,
    check: async (key) => decide(key),
  };
}
