import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { access, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvidenceObjectMissingError, type EvidenceStorage } from '../src/domain/evidence/evidence-storage.js';
import { createEvidenceStorage } from '../src/domain/evidence/storage-config.js';

const BUCKET = 'evidence-test';
const S3_REGION = 'us-east-1';
const scratchDir = mkdtempSync(join(tmpdir(), 'identity-evidence-'));
const CREDENTIAL_VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;
const savedCredentials = CREDENTIAL_VARIABLES.map((name) => [name, process.env[name]] as const);

let s3Server: S3rver;
let s3Endpoint = '';

beforeAll(async () => {
  // The store reads credentials through the SDK's default chain, as in production; the
  // environment is the first link of that chain, so the test sets them there.
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  delete process.env.AWS_SESSION_TOKEN;
  s3Server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratchDir, 's3rver'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3Server.run();
  s3Endpoint = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await s3Server.close();
  for (const [name, value] of savedCredentials) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(scratchDir, { recursive: true, force: true });
});

function createFilesystemStorage(): Promise<EvidenceStorage> {
  return createEvidenceStorage({ kind: 'filesystem', dir: join(scratchDir, `filesystem-${randomUUID()}`) });
}

function createS3Storage(): Promise<EvidenceStorage> {
  return createEvidenceStorage({
    kind: 's3',
    bucket: BUCKET,
    endpoint: s3Endpoint,
    region: S3_REGION,
    forcePathStyle: true,
    spoolDir: join(scratchDir, `s3-spool-${randomUUID()}`),
  });
}

function evidenceKey(): string {
  return `${randomUUID()}/${randomUUID()}/${randomUUID()}`;
}

function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Does what the upload route does: spool the bytes, hand the file over, delete the spool file. */
async function storeBytes(storage: EvidenceStorage, key: string, bytes: Buffer, spoolDir = storage.spoolDir): Promise<string> {
  const sourcePath = join(spoolDir, `upload-${randomUUID()}`);
  await writeFile(sourcePath, bytes);
  await storage.putFile(key, sourcePath, { contentType: 'application/octet-stream', sizeBytes: bytes.length, sha256Hex: sha256Hex(bytes) });
  return sourcePath;
}

async function readStored(storage: EvidenceStorage, key: string): Promise<{ bytes: Buffer; sizeBytes: number }> {
  const stored = await storage.get(key);
  return { bytes: await readAll(stored.body), sizeBytes: stored.sizeBytes };
}

const BAD_KEYS = [
  '',
  '/',
  '..',
  '.',
  '../outside',
  'a1/../../outside',
  '/etc/passwd',
  'a1\\b2',
  'a1/./b2',
  'a1//b2',
  'a1/',
  '/a1',
  'ABCDEF',
  'a1 b2',
  'a1%2fb2',
  'a1\u0000b2',
  '.a1.0f.tmp',
  'g',
  'a'.repeat(600),
];

describe.each([
  { kind: 'filesystem', create: createFilesystemStorage },
  { kind: 's3', create: createS3Storage },
])('$kind evidence storage', ({ kind, create }) => {
  let storage: EvidenceStorage;

  beforeAll(async () => {
    storage = await create();
  });

  it('reports its kind and a spool directory that exists', async () => {
    expect(storage.kind).toBe(kind);
    expect((await stat(storage.spoolDir)).isDirectory()).toBe(true);
  });

  it('returns a few MB byte for byte, with the right size', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 123);
    const key = evidenceKey();
    await storeBytes(storage, key, bytes);

    const stored = await readStored(storage, key);
    expect(stored.sizeBytes).toBe(bytes.length);
    expect(stored.bytes.length).toBe(bytes.length);
    expect(sha256Hex(stored.bytes)).toBe(sha256Hex(bytes));
    expect(stored.bytes.equals(bytes)).toBe(true);
  });

  it('throws EvidenceObjectMissingError for a key never stored', async () => {
    await expect(storage.get(evidenceKey())).rejects.toBeInstanceOf(EvidenceObjectMissingError);
  });

  it('throws EvidenceObjectMissingError for a key that is only a prefix of stored keys', async () => {
    const key = evidenceKey();
    await storeBytes(storage, key, randomBytes(64));
    const prefix = key.slice(0, key.lastIndexOf('/'));
    await expect(storage.get(prefix)).rejects.toBeInstanceOf(EvidenceObjectMissingError);
  });

  it('deletes idempotently', async () => {
    const key = evidenceKey();
    await storeBytes(storage, key, randomBytes(1024));

    await storage.delete(key);
    await expect(storage.get(key)).rejects.toBeInstanceOf(EvidenceObjectMissingError);
    await expect(storage.delete(key)).resolves.toBeUndefined();
    await expect(storage.delete(evidenceKey())).resolves.toBeUndefined();
  });

  it('replaces the object when the same key is stored again', async () => {
    const key = evidenceKey();
    await storeBytes(storage, key, randomBytes(200_000));
    const replacement = randomBytes(50_000);
    await storeBytes(storage, key, replacement);

    const stored = await readStored(storage, key);
    expect(stored.sizeBytes).toBe(replacement.length);
    expect(stored.bytes.equals(replacement)).toBe(true);
  });

  it('refuses a file whose size differs from the declared size, storing nothing', async () => {
    const key = evidenceKey();
    const sourcePath = join(storage.spoolDir, `upload-${randomUUID()}`);
    const bytes = randomBytes(1000);
    await writeFile(sourcePath, bytes);

    await expect(storage.putFile(key, sourcePath, { contentType: 'image/png', sizeBytes: 999, sha256Hex: sha256Hex(bytes) })).rejects.toThrow(/999 were declared/);
    await expect(storage.get(key)).rejects.toBeInstanceOf(EvidenceObjectMissingError);
  });

  it.each(BAD_KEYS)('refuses the key %j for every operation, leaving the upload untouched', async (badKey) => {
    const bytes = randomBytes(32);
    const sourcePath = join(storage.spoolDir, `upload-${randomUUID()}`);
    await writeFile(sourcePath, bytes);
    const refusal = /Refusing evidence storage key/;

    await expect(storage.putFile(badKey, sourcePath, { contentType: 'image/png', sizeBytes: bytes.length, sha256Hex: sha256Hex(bytes) })).rejects.toThrow(refusal);
    await expect(storage.get(badKey)).rejects.toThrow(refusal);
    await expect(storage.delete(badKey)).rejects.toThrow(refusal);
    expect((await readFile(sourcePath)).equals(bytes)).toBe(true);
  });
});

describe('filesystem evidence storage on disk', () => {
  it('moves the upload into place owner-only, leaving no temporary or spool files', async () => {
    const dir = join(scratchDir, `filesystem-${randomUUID()}`);
    const storage = await createEvidenceStorage({ kind: 'filesystem', dir });
    const key = evidenceKey();
    const sourcePath = await storeBytes(storage, key, randomBytes(100_000));

    expect(existsSync(sourcePath)).toBe(false);
    expect(await readdir(storage.spoolDir)).toEqual([]);
    const [tenantId, caseId] = key.split('/');
    expect((await readdir(join(dir, 'objects'), { recursive: true })).sort()).toEqual([tenantId, `${tenantId}/${caseId}`, key].sort());
    expect((await stat(join(dir, 'objects', key))).mode & 0o777).toBe(0o600);
    for (const directory of ['objects', 'spool', `objects/${tenantId}`, `objects/${tenantId}/${caseId}`]) {
      expect((await stat(join(dir, directory))).mode & 0o777).toBe(0o700);
    }
  });

  it('keeps serving the object a reader opened while the key is replaced', async () => {
    const storage = await createFilesystemStorage();
    const key = evidenceKey();
    const original = randomBytes(500_000);
    await storeBytes(storage, key, original);

    const opened = await storage.get(key);
    await storeBytes(storage, key, randomBytes(10));
    expect((await readAll(opened.body)).equals(original)).toBe(true);
  });

  // /dev/shm is a tmpfs on Linux: a spool there is on another device than the store, so rename fails with EXDEV.
  const otherDevice = '/dev/shm';
  const hasOtherDevice = existsSync(otherDevice) && statSync(otherDevice).dev !== statSync(tmpdir()).dev;

  it.skipIf(!hasOtherDevice)('copies from another file system through a temporary name, then leaves the source to the caller', async () => {
    const dir = join(scratchDir, `filesystem-${randomUUID()}`);
    const storage = await createEvidenceStorage({ kind: 'filesystem', dir });
    const foreignSpool = await mkdtemp(join(otherDevice, 'identity-evidence-'));
    try {
      const key = evidenceKey();
      const bytes = randomBytes(1024 * 1024);
      const sourcePath = await storeBytes(storage, key, bytes, foreignSpool);

      expect((await readStored(storage, key)).bytes.equals(bytes)).toBe(true);
      await expect(access(sourcePath)).resolves.toBeUndefined();
      const caseDir = join(dir, 'objects', key.slice(0, key.lastIndexOf('/')));
      expect(await readdir(caseDir)).toEqual([key.slice(key.lastIndexOf('/') + 1)]);
      expect((await stat(join(dir, 'objects', key))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(foreignSpool, { recursive: true, force: true });
    }
  });
});

describe('s3 evidence storage in the bucket', () => {
  it('stores the content type, length and SHA-256 with the object', async () => {
    const storage = await createS3Storage();
    const key = evidenceKey();
    const bytes = randomBytes(4096);
    const sourcePath = join(storage.spoolDir, `upload-${randomUUID()}`);
    await writeFile(sourcePath, bytes);
    await storage.putFile(key, sourcePath, { contentType: 'image/jpeg', sizeBytes: bytes.length, sha256Hex: sha256Hex(bytes) });

    const client = new S3Client({ region: S3_REGION, endpoint: s3Endpoint, forcePathStyle: true });
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
      expect(head.ContentType).toBe('image/jpeg');
      expect(head.ContentLength).toBe(bytes.length);
      expect(head.Metadata).toEqual({ sha256: sha256Hex(bytes) });
    } finally {
      client.destroy();
    }
  });
});
