import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_BYTES, sealedSize } from '../src/domain/evidence/envelope-stream.js';
import { createEvidenceKeyRing, type KeyEncryptionKey } from '../src/domain/evidence/evidence-keys.js';
import type { EvidenceStorage, EvidenceStorageConfig } from '../src/domain/evidence/evidence-storage.js';
import { createEvidenceStorage } from '../src/domain/evidence/storage-config.js';
import { createEvidenceVault, EvidenceKeyDestroyedError, EvidenceUnreadableError, type EvidenceObjectRef, type EvidenceVault } from '../src/domain/evidence/evidence-vault.js';

const BUCKET = 'identity-evidence';
const SECRETS_KEY = randomBytes(32);
const kek = (id: string): KeyEncryptionKey => ({ id, key: randomBytes(32) });

/** Reads a stream to its SHA-256 and length, holding one chunk at a time, and the largest growth of RSS seen meanwhile. */
async function digestOf(body: NodeJS.ReadableStream): Promise<{ sha256: string; bytes: number; peakRssGrowth: number }> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  return { sha256: hash.digest('hex'), bytes, peakRssGrowth: peak - baseline };
}

async function readAll(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A file of `size` pseudo-random bytes written in 1 MiB pieces, and its SHA-256. */
async function bigFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  for (let written = 0; written < size; written += 1_048_576) {
    const piece = randomBytes(Math.min(1_048_576, size - written));
    hash.update(piece);
    if (!out.write(piece)) await once(out, 'drain');
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return hash.digest('hex');
}

interface StoreFixture {
  name: string;
  config: (scratch: string, endpoint: string) => EvidenceStorageConfig;
}

const STORES: StoreFixture[] = [
  { name: 'file system', config: (scratch) => ({ kind: 'filesystem', dir: join(scratch, 'fs') }) },
  { name: 'S3', config: (scratch, endpoint) => ({ kind: 's3', bucket: BUCKET, endpoint, region: 'us-east-1', forcePathStyle: true, spoolDir: join(scratch, 's3-spool') }) },
];

describe.each(STORES)('evidence encrypted at rest on the $name store', (fixture) => {
  let scratch: string;
  let server: S3rver;
  let storage: EvidenceStorage;
  const first = kek('2026-01');
  let vault: EvidenceVault;
  /** Each stored record by its key, so storeRaw can hand back the record of the object it overwrote. */
  const refsByKey = new Map<string, EvidenceObjectRef>();

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'identity-encryption-'));
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch, 's3'), configureBuckets: [{ name: BUCKET }] });
    const { port } = await server.run();
    storage = await createEvidenceStorage(fixture.config(scratch, `http://127.0.0.1:${port}`));
    vault = createEvidenceVault(storage, createEvidenceKeyRing([first], SECRETS_KEY));
  });
  afterAll(async () => {
    await server.close();
    await rm(scratch, { recursive: true, force: true });
  });

  async function storeBytes(bytes: Buffer, target = vault): Promise<EvidenceObjectRef> {
    const id = randomUUID();
    const source = join(scratch, `${id}.src`);
    await writeFile(source, bytes);
    const storageKey = `${randomUUID()}/${id}`;
    const sealing = await target.store(id, storageKey, source, { contentType: 'image/jpeg' });
    const ref = { id, storageKey, fileSizeBytes: bytes.length, ...sealing };
    refsByKey.set(storageKey, ref);
    return ref;
  }

  it('round-trips a 50 MB video through ciphertext, streaming both ways in far less memory than the object', async () => {
    const size = 50 * 1024 * 1024;
    const source = join(scratch, 'video.mp4');
    const plaintextSha = await bigFile(source, size);
    const id = randomUUID();
    const storageKey = `${randomUUID()}/${id}`;
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
    let sealing;
    try {
      sealing = await vault.store(id, storageKey, source, { contentType: 'video/mp4' });
    } finally {
      clearInterval(sampler);
    }
    expect(sealing).toMatchObject({ encryption: 'aes-256-gcm-stream-v1', dataKeyId: '2026-01' });

    // What the store holds is ciphertext of the expected framing, not the video.
    const raw = await storage.get(storageKey);
    expect(raw.sizeBytes).toBe(sealedSize(size));
    const stored = await digestOf(raw.body);
    expect(stored.sha256).not.toBe(plaintextSha);

    const opened = await vault.open({ id, storageKey, fileSizeBytes: size, ...sealing });
    expect(opened.sizeBytes).toBe(size);
    const read = await digestOf(opened.body);
    expect(read).toMatchObject({ sha256: plaintextSha, bytes: size });
    const uploadGrowth = peakRss - rssBefore;
    console.info(`${fixture.name}: 50 MB store peak RSS growth ${(uploadGrowth / 1_048_576).toFixed(1)} MB, read ${(read.peakRssGrowth / 1_048_576).toFixed(1)} MB`);
    // Holding the object whole would grow RSS by 50 MB or more on its own.
    expect(uploadGrowth).toBeLessThan(40 * 1_048_576);
    expect(read.peakRssGrowth).toBeLessThan(40 * 1_048_576);
  });

  it('round-trips empty, one-chunk, exact-chunk and odd sizes', async () => {
    for (const size of [0, 1, CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1, 3 * CHUNK_BYTES + 5]) {
      const bytes = randomBytes(size);
      const ref = await storeBytes(bytes);
      const raw = await storage.get(ref.storageKey);
      raw.body.destroy();
      expect(raw.sizeBytes).toBe(sealedSize(size));
      expect((await readAll((await vault.open(ref)).body)).equals(bytes)).toBe(true);
    }
  });

  it('answers EvidenceUnreadableError for a flipped byte in the first chunk, before any byte is handed on', async () => {
    const ref = await storeBytes(randomBytes(CHUNK_BYTES + 1000));
    const ciphertext = await readAll((await storage.get(ref.storageKey)).body);
    ciphertext[40] = ciphertext[40]! ^ 0x01;
    const tampered = await storeRaw(ref.storageKey, ciphertext);
    await expect(vault.open(tampered)).rejects.toMatchObject({ code: 'EVIDENCE_UNREADABLE', status: 500 });
  });

  it('errors the stream at a tampered later chunk, having handed on only authenticated bytes', async () => {
    const bytes = randomBytes(3 * CHUNK_BYTES + 1000);
    const ref = await storeBytes(bytes);
    const ciphertext = await readAll((await storage.get(ref.storageKey)).body);
    ciphertext[ciphertext.length - 5] = ciphertext[ciphertext.length - 5]! ^ 0x80;
    const tampered = await storeRaw(ref.storageKey, ciphertext);
    const opened = await vault.open(tampered);
    const received: Buffer[] = [];
    await expect(
      (async () => {
        for await (const chunk of opened.body) received.push(chunk as Buffer);
      })(),
    ).rejects.toBeInstanceOf(EvidenceUnreadableError);
    const prefix = Buffer.concat(received);
    expect(prefix.length).toBeLessThan(bytes.length);
    expect(prefix.equals(bytes.subarray(0, prefix.length))).toBe(true);
  });

  it('refuses a truncated object (the last chunk dropped) and an object moved to another record', async () => {
    const ref = await storeBytes(randomBytes(3 * CHUNK_BYTES + 1000));
    const ciphertext = await readAll((await storage.get(ref.storageKey)).body);
    const truncated = await storeRaw(ref.storageKey, ciphertext.subarray(0, 16 + 3 * (CHUNK_BYTES + 16)));
    await expect(readAll((await vault.open(truncated)).body)).rejects.toBeInstanceOf(EvidenceUnreadableError);
    const other = await storeBytes(randomBytes(10));
    await expect(vault.open({ ...other, id: ref.id })).rejects.toMatchObject({ code: 'EVIDENCE_UNREADABLE' });
  });

  it('answers EVIDENCE_UNREADABLE with a wrong key under the same id and with a key id not configured', async () => {
    const ref = await storeBytes(randomBytes(1000));
    const impostor = createEvidenceVault(storage, createEvidenceKeyRing([{ id: '2026-01', key: randomBytes(32) }], SECRETS_KEY));
    await expect(impostor.open(ref)).rejects.toMatchObject({ code: 'EVIDENCE_UNREADABLE' });
    const otherRing = createEvidenceVault(storage, createEvidenceKeyRing([kek('2027-01')], SECRETS_KEY));
    await expect(otherRing.open(ref)).rejects.toMatchObject({ code: 'EVIDENCE_UNREADABLE' });
  });

  it('opens objects sealed under an older key after rotation, and re-sealing moves them to the new key without touching the object', async () => {
    const bytes = randomBytes(CHUNK_BYTES + 7000);
    const ref = await storeBytes(bytes);
    const before = await readAll((await storage.get(ref.storageKey)).body);
    const second = kek('2026-07');
    const rotated = createEvidenceVault(storage, createEvidenceKeyRing([second, first], SECRETS_KEY));
    expect((await readAll((await rotated.open(ref)).body)).equals(bytes)).toBe(true);
    const resealed = rotated.keyRing.reseal({ keyId: ref.dataKeyId!, sealed: ref.sealedDataKey! }, ref.id);
    expect(resealed.keyId).toBe('2026-07');
    const newOnly = createEvidenceVault(storage, createEvidenceKeyRing([second], SECRETS_KEY));
    const moved = { ...ref, dataKeyId: resealed.keyId, sealedDataKey: resealed.sealed };
    expect((await readAll((await newOnly.open(moved)).body)).equals(bytes)).toBe(true);
    expect((await readAll((await storage.get(ref.storageKey)).body)).equals(before)).toBe(true);
    // New objects are sealed under the first key listed.
    expect((await storeBytes(randomBytes(10), rotated)).dataKeyId).toBe('2026-07');
  });

  it('without EVIDENCE_KEYS seals under a key derived from SECRETS_KEY, which still opens its objects once EVIDENCE_KEYS is set', async () => {
    const bytes = randomBytes(2000);
    const derivedOnly = createEvidenceVault(storage, createEvidenceKeyRing(undefined, SECRETS_KEY));
    const ref = await storeBytes(bytes, derivedOnly);
    expect(ref.dataKeyId).toBe('secrets-key');
    const configured = createEvidenceVault(storage, createEvidenceKeyRing([kek('2027-02')], SECRETS_KEY));
    expect((await readAll((await configured.open(ref)).body)).equals(bytes)).toBe(true);
    const otherSecrets = createEvidenceVault(storage, createEvidenceKeyRing([kek('2027-02')], randomBytes(32)));
    await expect(otherSecrets.open(ref)).rejects.toMatchObject({ code: 'EVIDENCE_UNREADABLE' });
  });

  it('reads a plaintext object of an earlier version as it is, and refuses one whose data key was destroyed', async () => {
    const bytes = randomBytes(5000);
    const id = randomUUID();
    const storageKey = `${randomUUID()}/${id}`;
    const source = join(scratch, `${id}.legacy`);
    await writeFile(source, bytes);
    await storage.putFile(storageKey, source, { contentType: 'image/jpeg', sizeBytes: bytes.length, sha256Hex: createHash('sha256').update(bytes).digest('hex') });
    const legacy = { id, storageKey, fileSizeBytes: bytes.length, encryption: 'none', dataKeyId: null, sealedDataKey: null };
    expect((await readAll((await vault.open(legacy)).body)).equals(bytes)).toBe(true);
    const ref = await storeBytes(randomBytes(10));
    await expect(vault.open({ ...ref, sealedDataKey: null })).rejects.toBeInstanceOf(EvidenceKeyDestroyedError);
  });

  /** Overwrites the stored object with `bytes` (an attacker with write access to the bucket or disk). */
  async function storeRaw(storageKey: string, bytes: Buffer): Promise<EvidenceObjectRef> {
    const path = join(scratch, `${randomUUID()}.raw`);
    await writeFile(path, bytes);
    await storage.putFile(storageKey, path, { contentType: 'application/octet-stream', sizeBytes: bytes.length, sha256Hex: createHash('sha256').update(bytes).digest('hex') });
    const refs = refsByKey.get(storageKey);
    if (!refs) throw new Error('unknown key');
    return refs;
  }
});
