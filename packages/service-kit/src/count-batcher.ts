import { BatchedWrites } from './batched-writes.js';

/**
 * Counters without a write per event, each key carrying `width` figures (e.g. requests and refused
 * requests). `write` must add to the stored figures (`count + excluded.count`).
 */
export class CountBatcher extends BatchedWrites<readonly number[]> {
  constructor(options: { width: number; write: (entries: ReadonlyMap<string, readonly number[]>) => Promise<void>; flushIntervalMs: number; onError: (error: unknown) => void }) {
    const { width, ...rest } = options;
    super({ ...rest, merge: (previous, next) => Array.from({ length: width }, (_, i) => (previous?.[i] ?? 0) + (next[i] ?? 0)) });
  }
}
