import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes spool files last written before `olderThan`: no request can still be writing one (the
 * listener cuts every request at its request timeout), so they are leftovers of a process that
 * died mid-upload. Returns how many were removed; a file gone meanwhile is not an error.
 */
export async function sweepSpool(spoolDir: string, olderThan: Date): Promise<number> {
  let names: string[];
  try {
    names = await readdir(spoolDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(spoolDir, name);
    try {
      const info = await stat(path);
      if (!info.isFile() || info.mtime >= olderThan) continue;
      await unlink(path);
      removed += 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return removed;
}

export interface SpoolSweeper {
  /** The sweep made at start (tests wait for it). */
  firstSweep: Promise<number>;
  stop(): void;
}

/** Sweeps at once, then every `intervalMs`, files older than `maxAgeMs` (the request timeout). */
export function startSpoolSweeper(options: {
  spoolDir: string;
  maxAgeMs: number;
  intervalMs: number;
  clock: () => Date;
  log: { info(object: object, message: string): void; warn(object: object, message: string): void };
}): SpoolSweeper {
  const sweep = async () => {
    try {
      const removed = await sweepSpool(options.spoolDir, new Date(options.clock().getTime() - options.maxAgeMs));
      if (removed > 0) options.log.info({ removed, spoolDir: options.spoolDir }, 'removed abandoned upload spool files');
      return removed;
    } catch (error) {
      options.log.warn({ err: error, spoolDir: options.spoolDir }, 'spool sweep failed');
      return 0;
    }
  };
  const firstSweep = sweep();
  const timer = setInterval(() => void sweep(), options.intervalMs);
  timer.unref();
  return { firstSweep, stop: () => clearInterval(timer) };
}
