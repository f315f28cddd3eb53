import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * The stored form of an evidence object: a 16-byte header, then the plaintext cut into chunks
 * of CHUNK_BYTES, each sealed with AES-256-GCM under the object's own data key (the STREAM
 * construction of Hoang, Reyhanitabar, Rogaway and Vizár). Each chunk's nonce is the header's
 * random prefix, the chunk's index and a last-chunk flag, and its associated data is the header
 * plus the evidence id, so chunks cannot be reordered, dropped, truncated, extended or moved to
 * another object without the authentication failing. Memory is one chunk, whatever the size.
 *
 * header: magic "SVE" | version 1 | chunk size (uint32 BE) | nonce prefix (7 bytes) | 0
 */
export const ENVELOPE_ENCRYPTION = 'aes-256-gcm-stream-v1';
// 256 KiB: per-chunk cipher set-up costs about half the throughput at 64 KiB, and a chunk is all a stream holds.
export const CHUNK_BYTES = 256 * 1024;
const HEADER_BYTES = 16;
const TAG_BYTES = 16;
const MAGIC = Buffer.from('SVE\u0001', 'latin1');

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

/** `associatedData` here is the header followed by the caller's associated data, built once per stream. */
function sealChunk(dataKey: Buffer, header: Buffer, associatedData: Buffer, index: number, last: boolean, plaintext: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', dataKey, nonceFor(header.subarray(8, 15), index, last));
  cipher.setAAD(associatedData);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

function openChunk(dataKey: Buffer, header: Buffer, associatedData: Buffer, index: number, last: boolean, sealed: Buffer): Buffer {
  if (sealed.length < TAG_BYTES) throw new EnvelopeAuthenticationError('the object ends inside a chunk');
  const decipher = createDecipheriv('aes-256-gcm', dataKey, nonceFor(header.subarray(8, 15), index, last));
  decipher.setAAD(associatedData);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new EnvelopeAuthenticationError(`chunk ${index} failed authentication`);
  }
}

/**
 * Cuts a byte stream into pieces of `pieceBytes`, holding back the last one until the input
 * ends: only then is it known to be the last (its nonce flag differs).
 */
class Chunker {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private index = 0;

  constructor(
    private readonly pieceBytes: number,
    private readonly emit: (piece: Buffer, index: number, last: boolean) => Buffer,
  ) {}

  /** Strictly more than one piece: a piece goes out only once a byte after it proves it is not the last. */
  add(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const out: Buffer[] = [];
    if (this.pendingBytes <= this.pieceBytes) return out;
    const joined = Buffer.concat(this.pending, this.pendingBytes);
    let offset = 0;
    while (joined.length - offset > this.pieceBytes) {
      out.push(this.emit(joined.subarray(offset, offset + this.pieceBytes), this.index, false));
      this.index += 1;
      offset += this.pieceBytes;
    }
    this.pending = [joined.subarray(offset)];
    this.pendingBytes = joined.length - offset;
    return out;
  }

  finish(): Buffer {
    return this.emit(Buffer.concat(this.pending, this.pendingBytes), this.index, true);
  }
}

/** A Transform whose work is a Chunker (set up by the subclass, possibly after a header). */
abstract class ChunkedTransform extends Transform {
  protected chunker: Chunker | null = null;

  protected pushAll(pieces: Buffer[]): void {
    for (const piece of pieces) if (piece.length > 0) this.push(piece);
  }

  protected abstract beforeChunker(chunk: Buffer): Buffer | null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      const rest = this.chunker ? chunk : this.beforeChunker(chunk);
      if (rest !== null && this.chunker) this.pushAll(this.chunker.add(rest));
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      if (!this.chunker) throw new EnvelopeAuthenticationError('the object ends inside its envelope header');
      this.pushAll([this.chunker.finish()]);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }
}

class EncryptingTransform extends ChunkedTransform {
  constructor(dataKey: Buffer, associatedData: Buffer) {
    super();
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    header.writeUInt32BE(CHUNK_BYTES, 4);
    randomBytes(7).copy(header, 8);
    this.push(header);
    const headerAndData = Buffer.concat([header, associatedData]);
    this.chunker = new Chunker(CHUNK_BYTES, (piece, index, last) => sealChunk(dataKey, header, headerAndData, index, last, piece));
  }

  protected beforeChunker(chunk: Buffer): Buffer {
    return chunk;
  }
}

class DecryptingTransform extends ChunkedTransform {
  private headerBytes: Buffer[] = [];

  constructor(
    private readonly dataKey: Buffer,
    private readonly associatedData: Buffer,
  ) {
    super();
  }

  /** Gathers the header; once whole, checks it, sets up the chunker and hands back the bytes after it. */
  protected beforeChunker(chunk: Buffer): Buffer | null {
    this.headerBytes.push(chunk);
    const joined = Buffer.concat(this.headerBytes);
    if (joined.length < HEADER_BYTES) return null;
    const header = Buffer.from(joined.subarray(0, HEADER_BYTES));
    const chunkBytes = header.readUInt32BE(4);
    if (!header.subarray(0, 4).equals(MAGIC) || chunkBytes === 0 || chunkBytes > 16 * 1024 * 1024) {
      throw new EnvelopeAuthenticationError('the object does not start with an evidence envelope header');
    }
    const headerAndData = Buffer.concat([header, this.associatedData]);
    this.chunker = new Chunker(chunkBytes + TAG_BYTES, (sealed, index, last) => openChunk(this.dataKey, header, headerAndData, index, last, sealed));
    this.headerBytes = [];
    return joined.subarray(HEADER_BYTES);
  }
}

/** Seals a plaintext stream; `associatedData` binds the object to its record (the evidence id). */
export function createEncryptStream(dataKey: Buffer, associatedData: string): Transform {
  return new EncryptingTransform(dataKey, Buffer.from(associatedData, 'utf8'));
}

/** Opens a sealed stream, emitting only plaintext that has been authenticated; fails with EnvelopeAuthenticationError otherwise. */
export function createDecryptStream(dataKey: Buffer, associatedData: string): Transform {
  return new DecryptingTransform(dataKey, Buffer.from(associatedData, 'utf8'));
}
