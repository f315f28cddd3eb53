import { randomBytes } from 'node:crypto';
import { Readable, type Transform } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES, createDecryptStream, createEncryptStream, EnvelopeAuthenticationError } from '../src/domain/evidence/envelope-stream.js';

// One test per attack the envelope must stop (docs/evidence.md, "The envelope construction"), each on
// objects sealed by the service's own encrypting stream, each against a control that opens untouched.
const EVIDENCE_ID = '5d0f3c1a-8b2e-4f6d-9c7a-1e3b5a7c9d20';
const OTHER_EVIDENCE_ID = '9a4e2b7c-1d3f-4a5b-8c6d-7e9f0a1b2c3d';
const HEADER = 16;
const SEALED_CHUNK = CHUNK_BYTES + 16;

async function run(stream: Transform, bytes: Buffer, received: Buffer[] = []): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += 65_537) pieces.push(bytes.subarray(offset, offset + 65_537));
  for await (const chunk of Readable.from(pieces).pipe(stream) as AsyncIterable<Buffer>) received.push(chunk);
  return Buffer.concat(received);
}

const seal = (key: Buffer, id: string, plaintext: Buffer) => run(createEncryptStream(key, id), plaintext);

/** The sealed chunks of an object, header apart. */
function chunksOf(sealed: Buffer): { header: Buffer; chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  for (let offset = HEADER; offset < sealed.length; offset += SEALED_CHUNK) chunks.push(sealed.subarray(offset, offset + SEALED_CHUNK));
  return { header: sealed.subarray(0, HEADER), chunks };
}

/** Opening must fail with the envelope's error, and no byte it handed on may come from outside the plaintext's start. */
async function expectRefused(key: Buffer, id: string, sealed: Buffer, plaintext: Buffer, mayHandOn: number) {
  const received: Buffer[] = [];
  await expect(run(createDecryptStream(key, id), sealed, received)).rejects.toBeInstanceOf(EnvelopeAuthenticationError);
  const handedOn = Buffer.concat(received);
  expect(handedOn.length).toBeLessThanOrEqual(mayHandOn);
  expect(handedOn.equals(plaintext.subarray(0, handedOn.length))).toBe(true);
}

describe('the evidence envelope against its attacks', () => {
  const key = randomBytes(32);
  // Three full chunks and a short fourth: every position (first, middle, last) exists.
  const plaintext = randomBytes(3 * CHUNK_BYTES + 1234);

  it('opens the untouched object (the control every attack below is measured against)', async () => {
    const sealed = await seal(key, EVIDENCE_ID, plaintext);
    expect(chunksOf(sealed).chunks).toHaveLength(4);
    expect((await run(createDecryptStream(key, EVIDENCE_ID), sealed)).equals(plaintext)).toBe(true);
  });

  it('refuses an object with a chunk dropped (first or middle)', async () => {
    const sealed = await seal(key, EVIDENCE_ID, plaintext);
    const { header, chunks } = chunksOf(sealed);
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([header, chunks[1]!, chunks[2]!, chunks[3]!]), plaintext, 0);
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([header, chunks[0]!, chunks[2]!, chunks[3]!]), plaintext, CHUNK_BYTES);
  });

  it('refuses an object with two chunks swapped', async () => {
    const sealed = await seal(key, EVIDENCE_ID, plaintext);
    const { header, chunks } = chunksOf(sealed);
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([header, chunks[0]!, chunks[2]!, chunks[1]!, chunks[3]!]), plaintext, CHUNK_BYTES);
    // The short last chunk moved ahead of a full one.
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([header, chunks[0]!, chunks[1]!, chunks[3]!, chunks[2]!]), plaintext, 2 * CHUNK_BYTES);
  });

  it('refuses an object whose last chunk is cut off whole, or cut short', async () => {
    const sealed = await seal(key, EVIDENCE_ID, plaintext);
    const { header, chunks } = chunksOf(sealed);
    // Whole chunks only: what remains is well framed, but its last chunk was sealed as "not last".
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([header, chunks[0]!, chunks[1]!, chunks[2]!]), plaintext, 2 * CHUNK_BYTES);
    await expectRefused(key, EVIDENCE_ID, sealed.subarray(0, sealed.length - 1), plaintext, 3 * CHUNK_BYTES);
    await expectRefused(key, EVIDENCE_ID, sealed.subarray(0, HEADER + SEALED_CHUNK), plaintext, 0);
  });

  it("refuses chunks spliced in from another object, even one sealed with the same key for the same evidence id", async () => {
    const sealed = await seal(key, EVIDENCE_ID, plaintext);
    const other = await seal(key, EVIDENCE_ID, plaintext);
    const a = chunksOf(sealed);
    const b = chunksOf(other);
    // Same key, same id, same plaintext, same position: only the header's random nonce prefix differs.
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([a.header, a.chunks[0]!, b.chunks[1]!, a.chunks[2]!, a.chunks[3]!]), plaintext, CHUNK_BYTES);
    // The other object's chunks under this object's header, and this object's chunks under the other's header.
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([a.header, ...b.chunks]), plaintext, 0);
    await expectRefused(key, EVIDENCE_ID, Buffer.concat([b.header, ...a.chunks]), plaintext, 0);
    // A whole object presented as another evidence record's (the id is associated data of every chunk).
    await expectRefused(key, OTHER_EVIDENCE_ID, sealed, plaintext, 0);
  });

  it('refuses a wrong key before handing on any byte', async () => {
    const sealed = await seal(key, EVIDENCE_ID, plaintext);
    await expectRefused(randomBytes(32), EVIDENCE_ID, sealed, plaintext, 0);
    // A key one bit away from the right one.
    const near = Buffer.from(key);
    near[31] = near[31]! ^ 0x01;
    await expectRefused(near, EVIDENCE_ID, sealed, plaintext, 0);
  });
});
