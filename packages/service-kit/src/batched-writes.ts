/**
 * Figures kept in memory and handed to `write` in one batch per interval (and on flush/stop), so a
 * request never causes a write of its own. `merge` folds a new value into the pending one for the
 * same key. Instances flush independently, so `write` must combine with what is stored (an upsert
 * that adds, or `greatest(...)`). A failed write puts its batch back, so it goes with the next one.
 */
export class BatchedWrites<V> {
  private pending = new Map<string, V>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      merge: (previous: V | undefined, next: V) => V;
      write: (entries: ReadonlyMap<string, V>) => Promise<void>;
      flushIntervalMs: number;
      onError: (error: unknown) => void;
    },
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(this.options.onError), this.options.flushIntervalMs);
    this.timer.unref();
  }

  add(key: string, value: V): void {
    this.pending.set(key, this.options.merge(this.pending.get(key), value));
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.options.write(batch);
    } catch (error) {
      for (const [key, value] of batch) this.add(key, value);
      throw error;
    }
  }

  /**
   * The last flush. A shutdown must finish even when the database is away: its failure goes to
   * onError (the figures of this last batch are lost; they are best-effort by design), not to the
   * caller, whose close would otherwise fail and leave the rest of it undone.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(this.options.onError);
  }
}
