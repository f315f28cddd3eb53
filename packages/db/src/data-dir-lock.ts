import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * PGlite is one process and one connection: two processes opening the same data
 * directory corrupt it. The lock file records the owner's pid (and boot id, so a pid
 * reused after a reboot is not mistaken for a live owner). A lock whose owner is gone
 * is stale and taken over.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${ownerPid}. ` +
        `PGlite allows one process at a time: stop process ${ownerPid} (for example the running service) ` +
        `and try again, or point both at a real PostgreSQL server with DATABASE_URL.`,
    );
    this.name = 'DataDirLockedError';
  }
}

interface LockOwner {
  pid: number;
  bootId: string | null;
  hostname: string;
  startedAt: string;
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

const LOCK_FILE_NAME = 'owner.lock';

function currentBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

function readOwner(path: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    return typeof parsed.pid === 'number' ? (parsed as LockOwner) : null;
  } catch {
    return null; // missing, or torn by a crash mid-write: either way not a live owner's record
  }
}

function isOwnerAlive(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true; // a shared volume: we cannot see the other host's processes, so be safe
  const bootId = currentBootId();
  if (owner.bootId && bootId && owner.bootId !== bootId) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

function tryCreate(path: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(owner));
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Moves a stale lock aside atomically. If, between our read and the rename, another
 * process already replaced it with its own live lock, we put that lock back and report
 * the live owner instead of stealing it.
 */
function takeOverStaleLock(path: string, stalePid: number): void {
  const aside = `${path}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else moved it; retry decides
    throw error;
  }
  const moved = readOwner(aside);
  if (moved && moved.pid !== stalePid && isOwnerAlive(moved)) {
    try {
      linkSync(aside, path);
    } catch {
      // another process created a lock in the meantime; the retry will report it
    }
  }
  unlinkSync(aside);
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE_NAME);
  const me: LockOwner = { pid: process.pid, bootId: currentBootId(), hostname: hostname(), startedAt: new Date().toISOString() };

  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (tryCreate(path, me)) {
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        process.off('exit', release);
        if (readOwner(path)?.pid === process.pid) {
          try {
            unlinkSync(path);
          } catch {
            // already gone
          }
        }
      };
      // A process that exits without closing the database (an uncaught error) still frees the directory.
      process.on('exit', release);
      return { path, release };
    }
    const owner = readOwner(path);
    if (owner && owner.pid === process.pid) throw new DataDirLockedError(dataDir, owner.pid);
    if (owner && isOwnerAlive(owner)) throw new DataDirLockedError(dataDir, owner.pid);
    takeOverStaleLock(path, owner?.pid ?? -1);
  }
  const owner = readOwner(path);
  throw new DataDirLockedError(dataDir, owner?.pid ?? -1);
}
