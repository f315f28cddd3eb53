import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { reachedCrashPoint } from '../common/crash-points.js';
import {
  assertDeclaredSize,
  assertEvidenceKey,
  EvidenceObjectMissingError,
  PRIVATE_DIRECTORY_MODE,
  PRIVATE_FILE_MODE,
  type EvidenceStorage,
  type StoredObject,
} from './evidence-storage.js';

/**
 * Objects live at `<dir>/objects/<key>` and uploads are spooled in `<dir>/spool`, on the same
 * file system, so storing an upload is a rename: a reader sees the old object or the new
 * one, never part of one.
 */
export class FilesystemEvidenceStorage implements EvidenceStorage {
  readonly kind = 'filesystem' as const;
  readonly spoolDir: string;
  private readonly objectsDir: string;

  private constructor(dir: string) {
    // Absolute, so the paths mkdir reports compare equal to the ones built here.
    this.objectsDir = join(resolve(dir), 'objects');
    this.spoolDir = join(resolve(dir), 'spool');
  }

  /** Creates the directories if needed; an existing `objects` or `spool` directory is narrowed to owner-only. */
  static async open(dir: string): Promise<FilesystemEvidenceStorage> {
    const storage = new FilesystemEvidenceStorage(dir);
    for (const directory of [storage.objectsDir, storage.spoolDir]) {
      await mkdir(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
      await chmod(directory, PRIVATE_DIRECTORY_MODE);
    }
    return storage;
  }

  async putFile(key: string, sourcePath: string, meta: { sizeBytes: number }): Promise<void> {
    const targetPath = this.pathFor(key);
    const targetDir = dirname(targetPath);
    const firstCreatedDir = await mkdir(targetDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });

    const source = await open(sourcePath, 'r');
    try {
      assertDeclaredSize(sourcePath, (await source.stat()).size, meta.sizeBytes);
      await source.chmod(PRIVATE_FILE_MODE);
      // The caller's writes must be on disk before a name points at them, or a crash could leave
      // a complete-looking object with missing bytes.
      await source.sync();
    } finally {
      await source.close();
    }
    reachedCrashPoint('evidence-synced');

    try {
      await rename(sourcePath, targetPath);
    } catch (error) {
      if (errorCode(error) !== 'EXDEV') throw error;
      await copyIntoPlace(sourcePath, targetPath);
    }

    // A new name is durable only once the directory holding it is synced: the target's own
    // directory, and the parent of each directory mkdir just created.
    await syncDirectory(targetDir);
    if (firstCreatedDir !== undefined) {
      for (let directory = targetDir; directory.startsWith(firstCreatedDir); directory = dirname(directory)) {
        await syncDirectory(dirname(directory));
      }
    }
  }

  async get(key: string): Promise<StoredObject> {
    let handle: FileHandle;
    try {
      // O_NOFOLLOW: nothing here creates symbolic links, so one in place of an object is refused (ELOOP), not followed.
      handle = await open(this.pathFor(key), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if (isMissing(error)) throw new EvidenceObjectMissingError(key);
      throw error;
    }
    try {
      const stats = await handle.stat();
      // A key that is a prefix of other keys names a directory, not an object.
      if (!stats.isFile()) throw new EvidenceObjectMissingError(key);
      // The open descriptor keeps reading the object it opened even if the key is overwritten or deleted meanwhile.
      return { body: handle.createReadStream(), sizeBytes: stats.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const targetPath = this.pathFor(key);
    try {
      await unlink(targetPath);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    // Deletion is often an erasure request: make it survive a crash too. Empty parent
    // directories stay, because removing them races with a concurrent putFile into them.
    await syncDirectory(dirname(targetPath));
  }

  private pathFor(key: string): string {
    assertEvidenceKey(key);
    const path = join(this.objectsDir, ...key.split('/'));
    // Unreachable with a valid key; kept so a future loosening of the key rules cannot escape the directory.
    if (!path.startsWith(this.objectsDir + sep)) throw new Error(`Evidence storage key ${JSON.stringify(key)} resolves outside the store.`);
    return path;
  }
}

/**
 * Across file systems a rename is impossible, so copy to a temporary name beside the target,
 * sync it, and rename that. The temporary name starts with '.', which no valid key can, so it
 * never collides with an object; a crash mid-copy leaves only such a dot file behind.
 */
async function copyIntoPlace(sourcePath: string, targetPath: string): Promise<void> {
  const temporaryPath = join(dirname(targetPath), `.${basename(targetPath)}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    // The source was already narrowed to PRIVATE_FILE_MODE, and copyFile keeps the mode.
    await copyFile(sourcePath, temporaryPath, constants.COPYFILE_EXCL);
    const copy = await open(temporaryPath, 'r+');
    try {
      await copy.chmod(PRIVATE_FILE_MODE);
      await copy.sync();
    } finally {
      await copy.close();
    }
    await rename(temporaryPath, targetPath);
  } catch (error) {
    await unlink(temporaryPath).catch(() => undefined);
    throw error;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** ENOTDIR: a path component is a file, e.g. key `a/b` when `a` is stored as an object. */
function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
