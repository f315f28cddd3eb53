import { BatchedWrites } from './batched-writes.js';

/**
 * "Last used" timestamps without a write per request. `write` should never move a stored value
 * backwards (e.g. `greatest(column, value)`), since instances flush independently.
 */
export class LastUsedBatcher extends BatchedWrites<Date> {
  constructor(options: { write: (entries: ReadonlyMap<string, Date>) => Promise<void>; flushIntervalMs: number; onError: (error: unknown) => void }) {
    super({ ...options, merge: (previous, next) => (previous && previous >= next ? previous : next) });
  }

  record(id: string, at: Date): void {
    this.add(id, at);
  }
}
