/**
 * Counters without a write per event: counts are added up in memory and handed to `write` in one
 * batch per interval (and on flush/stop), like the rate limiter hands Redis one script call for many
 * requests. `write` must add to the stored figures (an upsert of `count + excluded.count`), since
 * instances flush independently. A failed write puts its counts back, so they go with the next one.
 */
export class CountBatcher {
  private pending = new Map<string, number[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      /** How many figures each key carries (e.g. requests and refused requests: 2). */
      width: number;
      write: (entries: ReadonlyMap<string, readonly number[]>) => Promise<void>;
      flushIntervalMs: number;
      onError: (error: unknown) => void;
    },
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(this.options.onError), this.options.flushIntervalMs);
    this.timer.unref();
  }

  add(key: string, amounts: readonly number[]): void {
    let counts = this.pending.get(key);
    if (!counts) {
      counts = new Array<number>(this.options.width).fill(0);
      this.pending.set(key, counts);
    }
    for (let i = 0; i < counts.length; i++) counts[i]! += amounts[i] ?? 0;
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.options.write(batch);
    } catch (error) {
      for (const [key, amounts] of batch) this.add(key, amounts);
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
