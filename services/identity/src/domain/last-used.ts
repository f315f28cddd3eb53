import { inArray, sql } from 'drizzle-orm';
import { oauthClients, type IdentityExecutor } from '../db/schema.js';

/**
 * Client lastUsedAt without a write per request: uses are collected in memory and written
 * in one statement per flush (every few seconds, and on close). Several instances each
 * write their newest value; GREATEST keeps the column from moving backwards.
 */
export class LastUsedRecorder {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: IdentityExecutor,
    private readonly options: { flushIntervalMs: number; onError: (error: unknown) => void },
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(this.options.onError), this.options.flushIntervalMs);
    this.timer.unref();
  }

  record(clientEntityId: string, at: Date): void {
    const previous = this.pending.get(clientEntityId);
    if (!previous || previous < at) this.pending.set(clientEntityId, at);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    // Grouped by timestamp: usually one statement per flush.
    const byTime = new Map<string, string[]>();
    for (const [id, at] of batch) byTime.set(at.toISOString(), [...(byTime.get(at.toISOString()) ?? []), id]);
    for (const [at, ids] of byTime) {
      await this.db
        .update(oauthClients)
        .set({ lastUsedAt: sql`greatest(${oauthClients.lastUsedAt}, ${at}::timestamptz)` })
        .where(inArray(oauthClients.id, ids));
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
