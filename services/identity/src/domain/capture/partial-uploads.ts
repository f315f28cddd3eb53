import { createCipheriv, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DataStore, ERRORS, Upload } from '@tus/server';
import type { EvidenceKeyRing, SealedDataKey } from '../evidence/evidence-keys.js';
import type { EvidenceType } from '../cases/case-states.js';

/**
 * Partial bytes of a resumable (tus) upload, kept on this instance's disk beside the upload
 * spool until the last byte arrives; then the upload is read back once and goes through the same
 * path as a one-request upload (hashed, sniffed, sealed, stored, recorded), and its part removed.
 *
 * The bytes are never on disk in the clear: each part has its own data key, sealed by the
 * evidence key ring like an evidence object's, and is written with AES-256-CTR, whose keystream
 * position is the byte offset, so a PATCH that resumes at any offset appends without reading what
 * is there. (CTR does not authenticate: the part is sealed with AES-GCM once whole, and a part
 * changed on disk can only change what the upload becomes, as a client could.)
 *
 * Each part is bound to the capture session that created it: its record names the case, and
 * nobody else finds it. Parts expire with their session and are swept after.
 */
export interface PartialUploadRecord {
  id: string;
  tenantId: string;
  caseId: string;
  sessionId: string;
  evidenceType: EvidenceType;
  fileName: string;
  sizeBytes: number;
  expiresAt: string;
  createdAt: string;
  sealedKey: SealedDataKey;
  /** Taken as evidence: the bytes are gone, the record stays (until the sweep) so a client that lost the last answer finds the upload whole. */
  finished?: boolean;
}

/** tus answers a thrown value by its status_code and body; an Error carrying them keeps the stack. */
export function tusError(answer: { status_code: number; body: string }): Error {
  return Object.assign(new Error(answer.body.trim()), answer);
}

const PART = '.part';
const RECORD = '.json';
const ID_SHAPE = /^[a-f0-9]{32}$/;

/** The counter block for a byte offset: a zero nonce (one key per part) and the block number. */
function counterAt(offset: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(Math.floor(offset / 16)), 8);
  return iv;
}

/** A CTR transform positioned at `offset` (encryption and decryption are the same operation). */
function ctrAt(key: Buffer, offset: number): Transform {
  const cipher = createCipheriv('aes-256-ctr', key, counterAt(offset));
  const skip = offset % 16;
  if (skip > 0) cipher.update(Buffer.alloc(skip));
  return cipher;
}

export class PartialUploadStore extends DataStore {
  constructor(
    readonly dir: string,
    private readonly keyRing: EvidenceKeyRing,
    /** Binds a new part to its session: filled in by the route, which authenticated the request. */
    private readonly recordFor: (upload: Upload) => Omit<PartialUploadRecord, 'sealedKey' | 'id' | 'sizeBytes' | 'createdAt'>,
  ) {
    super();
    this.extensions = ['creation', 'termination', 'expiration'];
  }

  static newId(): string {
    return randomBytes(16).toString('hex');
  }

  private path(id: string, ending: string): string {
    if (!ID_SHAPE.test(id)) throw tusError(ERRORS.FILE_NOT_FOUND);
    return join(this.dir, `${id}${ending}`);
  }

  /** The record of a part, or null (unknown, malformed id, or gone). */
  async record(id: string): Promise<PartialUploadRecord | null> {
    if (!ID_SHAPE.test(id)) return null;
    try {
      return JSON.parse(await readFile(this.path(id, RECORD), 'utf8')) as PartialUploadRecord;
    } catch {
      return null;
    }
  }

  private key(record: PartialUploadRecord): Buffer {
    return this.keyRing.openDataKey(record.sealedKey, `partial-upload:${record.id}`);
  }

  override async create(upload: Upload): Promise<Upload> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const { sealed } = this.keyRing.newDataKey(`partial-upload:${upload.id}`);
    const record: PartialUploadRecord = { ...this.recordFor(upload), id: upload.id, sizeBytes: upload.size ?? 0, createdAt: new Date().toISOString(), sealedKey: sealed };
    await writeFile(this.path(upload.id, PART), Buffer.alloc(0), { mode: 0o600, flag: 'wx' });
    await writeFile(this.path(upload.id, RECORD), JSON.stringify(record), { mode: 0o600, flag: 'wx' });
    upload.creation_date = record.createdAt;
    return upload;
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const record = await this.record(id);
    if (!record) throw tusError(ERRORS.FILE_NOT_FOUND);
    if (record.finished) throw tusError(ERRORS.INVALID_OFFSET);
    let written = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        written += chunk.length;
        callback(null, chunk);
      },
    });
    // What arrived before a cut stays: the client resumes from it.
    await pipeline(stream, count, ctrAt(this.key(record), offset), createWriteStream(this.path(id, PART), { flags: 'r+', start: offset })).catch(() => undefined);
    return offset + written;
  }

  override async getUpload(id: string): Promise<Upload> {
    const record = await this.record(id);
    if (!record) throw tusError(ERRORS.FILE_NOT_FOUND);
    const info = record.finished ? { size: record.sizeBytes } : await stat(this.path(id, PART)).catch(() => null);
    if (!info) throw tusError(ERRORS.FILE_NOT_FOUND);
    return new Upload({ id, size: record.sizeBytes, offset: info.size, creation_date: record.createdAt, metadata: { evidenceType: record.evidenceType, filename: record.fileName } });
  }

  /** The plaintext of a whole part, decrypted as it is read. */
  openPlaintext(record: PartialUploadRecord): Readable {
    return createReadStream(this.path(record.id, PART)).pipe(ctrAt(this.key(record), 0));
  }

  /**
   * The part became evidence: its bytes go now, its record says it is whole. A connection lost
   * while the last chunk's answer travelled back makes the client ask for the offset again: it
   * learns the upload is complete instead of sending the whole piece anew.
   */
  async markFinished(record: PartialUploadRecord): Promise<void> {
    await writeFile(this.path(record.id, RECORD), JSON.stringify({ ...record, finished: true }), { mode: 0o600 });
    await rm(this.path(record.id, PART), { force: true });
  }

  override async remove(id: string): Promise<void> {
    await rm(this.path(id, PART), { force: true });
    await rm(this.path(id, RECORD), { force: true });
  }

  /** Clients are told when a part stops being resumable; sessions last at most a few hours. */
  override getExpiration(): number {
    return 0;
  }

  /** Removes parts whose session has expired, and stray files of parts never recorded. Returns how many parts went. */
  async sweep(now: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const id = name.replace(/\.(part|json)$/, '');
      if (!ID_SHAPE.test(id) || !name.endsWith(RECORD)) continue;
      const record = await this.record(id);
      if (!record || new Date(record.expiresAt).getTime() <= now.getTime()) {
        await this.remove(id);
        removed += 1;
      }
    }
    // A part whose record was never written (a crash between the two files) is older than any request.
    for (const name of names) {
      if (!name.endsWith(PART)) continue;
      const id = name.slice(0, -PART.length);
      if (ID_SHAPE.test(id) && !(await this.record(id))) {
        const info = await stat(join(this.dir, name)).catch(() => null);
        if (info && now.getTime() - info.mtime.getTime() > 3_600_000) await rm(join(this.dir, name), { force: true });
      }
    }
    return removed;
  }
}
