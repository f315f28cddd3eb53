import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Readable, type Transform } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES, createDecryptStream, createEncryptStream, EnvelopeAuthenticationError, sealedSize } from '../src/domain/evidence/envelope-stream.js';

const EVIDENCE_ID = '0b7c6a52-3f1e-4c8e-9a51-2d7f4c1e9b30';

/**
 * The envelope format written out a second time, one sealed chunk at a time and with nothing
 * shared with the streams under test: what they write must open here, and what this writes, with
 * any chunk size in its header, must open there. Objects already stored depend on it.
 */
const reference = {
  nonce(prefix: Buffer, index: number, last: boolean): Buffer {
    const nonce = Buffer.alloc(12);
    prefix.copy(nonce, 0);
    nonce.writeUInt32BE(index, 7);
    nonce[11] = last ? 1 : 0;
    return nonce;
  },
  seal(key: Buffer, id: string, plaintext: Buffer, chunkBytes: number): Buffer {
    const header = Buffer.alloc(16);
    header.write('SVE\u0001', 0, 'latin1');
    header.writeUInt32BE(chunkBytes, 4);
    randomBytes(7).copy(header, 8);
    const parts = [header];
    const count = Math.max(1, Math.ceil(plaintext.length / chunkBytes));
    for (let index = 0; index < count; index += 1) {
      const cipher = createCipheriv('aes-256-gcm', key, reference.nonce(header.subarray(8, 15), index, index === count - 1));
      cipher.setAAD(Buffer.concat([header, Buffer.from(id)]));
      parts.push(cipher.update(plaintext.subarray(index * chunkBytes, (index + 1) * chunkBytes)), cipher.final(), cipher.getAuthTag());
    }
    return Buffer.concat(parts);
  },
  open(key: Buffer, id: string, sealed: Buffer): Buffer {
    const header = sealed.subarray(0, 16);
    const sealedChunk = header.readUInt32BE(4) + 16;
    const parts: Buffer[] = [];
    for (let offset = 16, index = 0; offset < sealed.length || index === 0; offset += sealedChunk, index += 1) {
      const chunk = sealed.subarray(offset, offset + sealedChunk);
      const decipher = createDecipheriv('aes-256-gcm', key, reference.nonce(header.subarray(8, 15), index, offset + sealedChunk >= sealed.length));
      decipher.setAAD(Buffer.concat([header, Buffer.from(id)]));
      decipher.setAuthTag(chunk.subarray(chunk.length - 16));
      parts.push(decipher.update(chunk.subarray(0, chunk.length - 16)), decipher.final());
    }
    return Buffer.concat(parts);
  },
};

/** `bytes` fed to `stream` in pieces of `pieceBytes` (pieces never line up with chunks); resolves with what came out, or rejects. */
async function through(stream: Transform, bytes: Buffer, pieceBytes: number, received: Buffer[] = []): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += pieceBytes) pieces.push(bytes.subarray(offset, offset + pieceBytes));
  for await (const chunk of Readable.from(pieces).pipe(stream) as AsyncIterable<Buffer>) received.push(chunk);
  return Buffer.concat(received);
}

describe('the evidence envelope format', () => {
  const key = randomBytes(32);

  it('still opens an object sealed by the first implementation (a stored vector)', async () => {
    const sealed = Buffer.from(
      '5356450100040000420cbe91b53cc500ebd12bf5ba1967ce482dac250a2bb146432b6543f7a2b30eb422463cdd999774e84c89246fd0c9b6ee7edb8263fb8004207b0a5adeae282b7370ca6c5d5778f16fd909f5765e6c3a3ec9485b7e',
      'hex',
    );
    const opened = await through(createDecryptStream(Buffer.alloc(32, 7), EVIDENCE_ID), sealed, 5);
    expect(opened.toString()).toBe('A passport photo sealed by the first envelope implementation.');
  });

  it('writes what an independent implementation of the format opens, for sizes around the chunk size', async () => {
    for (const size of [0, 1, CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1, 2 * CHUNK_BYTES, 3 * CHUNK_BYTES + 5]) {
      const plaintext = randomBytes(size);
      const sealed = await through(createEncryptStream(key, EVIDENCE_ID), plaintext, 10_007);
      expect(sealed.length).toBe(sealedSize(size));
      expect(reference.open(key, EVIDENCE_ID, sealed).equals(plaintext)).toBe(true);
    }
  });

  it('opens objects sealed with another chunk size, read from their header, whatever pieces the store hands over', async () => {
    for (const [chunkBytes, size, pieceBytes] of [
      [1000, 0, 7],
      [1000, 999, 7],
      [1000, 1000, 1],
      [1000, 1001, 4096],
      [1000, 3005, 1016],
      [1024 * 1024, 2 * 1024 * 1024 + 3, 65_536],
    ] as const) {
      const plaintext = randomBytes(size);
      const opened = await through(createDecryptStream(key, EVIDENCE_ID), reference.seal(key, EVIDENCE_ID, plaintext, chunkBytes), pieceBytes);
      expect(opened.equals(plaintext)).toBe(true);
    }
  });

  it('hands on only the chunks before a tampered one, and fails there', async () => {
    const plaintext = randomBytes(5000);
    const sealed = reference.seal(key, EVIDENCE_ID, plaintext, 1000);
    sealed[16 + 2 * 1016 + 10] = sealed[16 + 2 * 1016 + 10]! ^ 0x01;
    const received: Buffer[] = [];
    await expect(through(createDecryptStream(key, EVIDENCE_ID), sealed, 333, received)).rejects.toBeInstanceOf(EnvelopeAuthenticationError);
    // What was read before the failure (the failure may drop what was not yet read) is the start of the plaintext, and no byte of the tampered chunk.
    const handedOn = Buffer.concat(received);
    expect(handedOn.length).toBeLessThanOrEqual(2000);
    expect(handedOn.equals(plaintext.subarray(0, handedOn.length))).toBe(true);
  });

  it('refuses a full-size last chunk cut off, a chunk appended, and a header alone', async () => {
    const plaintext = randomBytes(3000);
    const sealed = reference.seal(key, EVIDENCE_ID, plaintext, 1000);
    const lastCutOff = sealed.subarray(0, 16 + 2 * 1016);
    await expect(through(createDecryptStream(key, EVIDENCE_ID), lastCutOff, 100)).rejects.toBeInstanceOf(EnvelopeAuthenticationError);
    const extended = Buffer.concat([sealed, sealed.subarray(16, 16 + 1016)]);
    await expect(through(createDecryptStream(key, EVIDENCE_ID), extended, 100)).rejects.toBeInstanceOf(EnvelopeAuthenticationError);
    await expect(through(createDecryptStream(key, EVIDENCE_ID), sealed.subarray(0, 16), 100)).rejects.toBeInstanceOf(EnvelopeAuthenticationError);
    await expect(through(createDecryptStream(key, EVIDENCE_ID), sealed.subarray(0, 9), 100)).rejects.toBeInstanceOf(EnvelopeAuthenticationError);
  });

  it("announces 'authenticated' once the first chunk passed, its bytes waiting to be read", async () => {
    const plaintext = randomBytes(2 * CHUNK_BYTES + 10);
    const decrypt = createDecryptStream(key, EVIDENCE_ID);
    const announced = new Promise<number>((resolve) => decrypt.once('authenticated', () => resolve(decrypt.readableLength)));
    decrypt.write(reference.seal(key, EVIDENCE_ID, plaintext, CHUNK_BYTES).subarray(0, 16 + CHUNK_BYTES + 16 + 1));
    // Nothing is read yet, and the second chunk is held back until a byte after it proves it is not the last.
    expect(await announced).toBe(CHUNK_BYTES);
    decrypt.destroy();
  });
});
