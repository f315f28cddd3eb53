/**
 * "Last used" timestamps without a write per request: uses are collected in memory and
 * handed to `write` in one batch per interval (and on stop). `write` should never move a
 * stored value backwards (e.g. `greatest(column, value)`), since instances flush independently.
 */
export class LastUsedBatcher {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      write: (entries: ReadonlyMap<string, Date>) => Promise<void>;
      flushIntervalMs: number;
      onError: (error: unknown) => void;
    },
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(this.options.onError), this.options.flushIntervalMs);
    this.timer.unref();
  }

  record(id: string, at: Date): void {
    const previous = this.pending.get(id);
    if (!previous || previous < at) this.pending.set(id, at);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    await this.options.write(batch);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
