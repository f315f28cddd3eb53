import { ProblemError } from '@svc/problem-json';

/** 429 for an upload over the concurrency caps; the connection closes so its unread body is not drained. */
export class TooManyUploadsError extends ProblemError {
  constructor(detail: string, retryAfterSeconds: number) {
    super({
      status: 429,
      code: 'TOO_MANY_UPLOADS',
      title: 'Too Many Uploads',
      detail,
      extensions: { retryAfter: retryAfterSeconds },
      headers: { 'Retry-After': String(retryAfterSeconds), Connection: 'close' },
    });
  }
}

export interface UploadSlotLimits {
  /** Uploads receiving at once from one client address. */
  perAddress: number;
  /** Uploads receiving at once in this process, from everyone. */
  total: number;
  retryAfterSeconds: number;
}

export interface UploadSlots {
  /** Takes a slot for an upload from `address`, or throws TooManyUploadsError; the returned function frees it (once). */
  acquire(address: string): () => void;
  inUse(): number;
}

/**
 * Concurrent uploads, counted in this process: each holds a descriptor, a spool file and a
 * socket for as long as its client takes, so a slow or hostile client must not hold many.
 */
export function createUploadSlots(limits: UploadSlotLimits): UploadSlots {
  const byAddress = new Map<string, number>();
  let total = 0;
  return {
    acquire(address) {
      const mine = byAddress.get(address) ?? 0;
      if (mine >= limits.perAddress) {
        throw new TooManyUploadsError(`At most ${limits.perAddress} uploads at a time from one address; wait for one to finish.`, limits.retryAfterSeconds);
      }
      if (total >= limits.total) throw new TooManyUploadsError('The server is receiving as many uploads as it can; retry shortly.', limits.retryAfterSeconds);
      byAddress.set(address, mine + 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (byAddress.get(address) ?? 1) - 1;
        if (left === 0) byAddress.delete(address);
        else byAddress.set(address, left);
      };
    },
    inUse: () => total,
  };
}
