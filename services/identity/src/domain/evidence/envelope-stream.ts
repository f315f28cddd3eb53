import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * The stored form of an evidence object: a 16-byte header, then the plaintext cut into chunks
 * of CHUNK_BYTES, each sealed with AES-256-GCM under the object's own data key (the STREAM
 * construction of Hoang, Reyhanitabar, Rogaway and Vizár). Each chunk's nonce is the header's
 * random prefix, the chunk's index and a last-chunk flag, and its associated data is the header
 * plus the evidence id, so chunks cannot be reordered, dropped, truncated, extended or moved to
 * another object without the authentication failing. Memory is about one chunk, whatever the size.
 *
 * header: magic "SVE" | version 1 | chunk size (uint32 BE) | nonce prefix (7 bytes) | 0
 *
 * Readers take the chunk size from the header, so objects sealed with another chunk size open alike.
 */
export const ENVELOPE_ENCRYPTION = 'aes-256-gcm-stream-v1';
// 256 KiB: per-chunk cipher set-up costs about half the throughput at 64 KiB, and a reader holds
// one chunk of plaintext back until its tag has been checked.
export const CHUNK_BYTES = 256 * 1024;
const HEADER_BYTES = 16;
const TAG_BYTES = 16;
const MAX_CHUNK_BYTES = 16 * 1024 * 1024;
const MAGIC = Buffer.from('SVE\u0001', 'latin1');
// Both sides of the transforms buffer about one chunk: enough for the next one to be sealed while
// the last is written, and the memory of a stream stays a few chunks whatever the object's size.
const STREAM_HIGH_WATER_MARK = CHUNK_BYTES;

/** The bytes stored for `plaintextBytes` of plaintext: an empty object is still one (empty) sealed chunk. */
export function sealedSize(plaintextBytes: number, chunkBytes = CHUNK_BYTES): number {
  const chunks = Math.max(1, Math.ceil(plaintextBytes / chunkBytes));
  return HEADER_BYTES + plaintextBytes + chunks * TAG_BYTES;
}

/** Authentication failed, or the bytes are not an envelope: the object was altered or the key is not the one it was sealed with. */
export class EnvelopeAuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvelopeAuthenticationError';
  }
}

function nonceFor(prefix: Buffer, index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  prefix.copy(nonce, 0, 0, 7);
  nonce.writeUInt32BE(index, 7);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/**
 * The bytes received and not yet sealed or opened, as the buffers they arrived in. Taking bytes
 * hands back views of those buffers: the cipher reads them where they are, never from a joined copy.
 */
class PendingBytes {
  private pieces: Buffer[] = [];
  private head = 0;
  length = 0;

  add(piece: Buffer): void {
    if (piece.length === 0) return;
    this.pieces.push(piece);
    this.length += piece.length;
  }

  /** The next `count` bytes (at most `length`), as views. */
  take(count: number): Buffer[] {
    const out: Buffer[] = [];
    let wanted = count;
    while (wanted > 0) {
      const first = this.pieces[this.head]!;
      if (first.length <= wanted) {
        out.push(first);
        wanted -= first.length;
        this.pieces[this.head] = EMPTY;
        this.head += 1;
      } else {
        out.push(first.subarray(0, wanted));
        this.pieces[this.head] = first.subarray(wanted);
        wanted = 0;
      }
    }
    this.length -= count;
    if (this.head > 64 || this.head === this.pieces.length) {
      this.pieces = this.pieces.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  /** The next `count` bytes as one buffer: only for the small header and tags. */
  takeJoined(count: number): Buffer {
    const parts = this.take(count);
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, count);
  }
}

const EMPTY = Buffer.alloc(0);

interface StreamOptions {
  /** What a failure becomes on the stream (the vault names the object in it). */
  wrapError?: (error: Error) => Error;
}

/** A byte Transform run through `work`; errors are handed on through `wrapError`. */
abstract class EnvelopeTransform extends Transform {
  protected readonly pending = new PendingBytes();

  constructor(private readonly wrapError: (error: Error) => Error) {
    super({ highWaterMark: STREAM_HIGH_WATER_MARK });
  }

  protected abstract work(ended: boolean): void;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending.add(chunk);
    this.run(false, callback);
  }

  override _flush(callback: TransformCallback): void {
    this.run(true, callback);
  }

  private run(ended: boolean, callback: TransformCallback): void {
    try {
      this.work(ended);
    } catch (error) {
      callback(this.wrapError(error as Error));
      return;
    }
    callback();
  }
}

class EncryptingTransform extends EnvelopeTransform {
  private readonly header: Buffer;
  private readonly headerAndData: Buffer;
  private index = 0;

  constructor(
    private readonly dataKey: Buffer,
    associatedData: Buffer,
    wrapError: (error: Error) => Error,
  ) {
    super(wrapError);
    this.header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(this.header, 0);
    this.header.writeUInt32BE(CHUNK_BYTES, 4);
    randomBytes(7).copy(this.header, 8);
    this.headerAndData = Buffer.concat([this.header, associatedData]);
    this.push(this.header);
  }

  /** A chunk is sealed only once a byte after it proves it is not the last (the last one's nonce differs). */
  protected work(ended: boolean): void {
    while (this.pending.length > CHUNK_BYTES) this.seal(CHUNK_BYTES, false);
    if (ended) this.seal(this.pending.length, true);
  }

  private seal(count: number, last: boolean): void {
    const cipher = createCipheriv('aes-256-gcm', this.dataKey, nonceFor(this.header.subarray(8, 15), this.index, last));
    cipher.setAAD(this.headerAndData);
    // One buffer per sealed chunk: a write of each piece and tag as it came out of the cipher costs
    // the writer (file, socket) more calls than this one copy does.
    const sealed = Buffer.allocUnsafe(count + TAG_BYTES);
    let offset = 0;
    for (const piece of this.pending.take(count)) offset += cipher.update(piece).copy(sealed, offset);
    offset += cipher.final().copy(sealed, offset);
    cipher.getAuthTag().copy(sealed, offset);
    this.push(sealed);
    this.index += 1;
  }
}

class DecryptingTransform extends EnvelopeTransform {
  private header: Buffer | null = null;
  private headerAndData: Buffer | null = null;
  private sealedChunkBytes = 0;
  private index = 0;
  private announced = false;

  constructor(
    private readonly dataKey: Buffer,
    private readonly associatedData: Buffer,
    wrapError: (error: Error) => Error,
  ) {
    super(wrapError);
  }

  /** A full-size chunk is opened only once a byte after it proves it is not the last. */
  protected work(ended: boolean): void {
    if (!this.header) {
      if (this.pending.length < HEADER_BYTES) {
        if (ended) throw new EnvelopeAuthenticationError('the object ends inside its envelope header');
        return;
      }
      this.readHeader();
    }
    while (this.pending.length > this.sealedChunkBytes) this.open(this.sealedChunkBytes, false);
    if (ended) {
      this.open(this.pending.length, true);
      this.announce();
    }
  }

  private readHeader(): void {
    const header = this.pending.takeJoined(HEADER_BYTES);
    const chunkBytes = header.readUInt32BE(4);
    if (!header.subarray(0, 4).equals(MAGIC) || chunkBytes === 0 || chunkBytes > MAX_CHUNK_BYTES) {
      throw new EnvelopeAuthenticationError('the object does not start with an evidence envelope header');
    }
    this.header = Buffer.from(header);
    this.headerAndData = Buffer.concat([this.header, this.associatedData]);
    this.sealedChunkBytes = chunkBytes + TAG_BYTES;
  }

  /** Opens the next sealed chunk of `count` bytes; its plaintext goes out only after its tag checked. */
  private open(count: number, last: boolean): void {
    if (count < TAG_BYTES) throw new EnvelopeAuthenticationError('the object ends inside a chunk');
    const decipher = createDecipheriv('aes-256-gcm', this.dataKey, nonceFor(this.header!.subarray(8, 15), this.index, last));
    decipher.setAAD(this.headerAndData!);
    const ciphertext = this.pending.take(count - TAG_BYTES);
    decipher.setAuthTag(this.pending.takeJoined(TAG_BYTES));
    // Held back until the tag has been checked, as the pieces the store handed over. Joined into
    // one buffer per chunk, a reader's RSS over a 50 MB object grew more in the tests (0.1-40 MB,
    // large buffers waiting for the garbage collector) than this way (0.1-13 MB).
    const plaintext = ciphertext.map((piece) => decipher.update(piece));
    try {
      decipher.final();
    } catch {
      throw new EnvelopeAuthenticationError(`chunk ${this.index} failed authentication`);
    }
    this.index += 1;
    for (const piece of plaintext) if (piece.length > 0) this.push(piece);
    this.announce();
  }

  /** 'authenticated': the first chunk (or the whole, empty object) passed; a reader may start answering. */
  private announce(): void {
    if (this.announced) return;
    this.announced = true;
    this.emit('authenticated');
  }
}

const unchanged = (error: Error) => error;

/** Seals a plaintext stream; `associatedData` binds the object to its record (the evidence id). */
export function createEncryptStream(dataKey: Buffer, associatedData: string, options: StreamOptions = {}): Transform {
  return new EncryptingTransform(dataKey, Buffer.from(associatedData, 'utf8'), options.wrapError ?? unchanged);
}

/**
 * Opens a sealed stream, emitting only plaintext that has been authenticated; fails with
 * EnvelopeAuthenticationError (through `wrapError`) otherwise. It emits 'authenticated' once its
 * first chunk has passed (or the object ended, fully checked), before that chunk's bytes are read.
 */
export function createDecryptStream(dataKey: Buffer, associatedData: string, options: StreamOptions = {}): Transform {
  return new DecryptingTransform(dataKey, Buffer.from(associatedData, 'utf8'), options.wrapError ?? unchanged);
}
