import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeNeeding } from '@svc/db/testing';
import { runCliProcess } from '@svc/service-kit/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, evidence } from '../src/db/schema.js';
import { encryptExistingEvidence, rekeyEvidence } from '../src/domain/evidence/evidence-maintenance.js';
import { createEvidenceKeyRing, type KeyEncryptionKey } from '../src/domain/evidence/evidence-keys.js';
import { createEvidenceStorage } from '../src/domain/evidence/storage-config.js';
import { createEvidenceVault } from '../src/domain/evidence/evidence-vault.js';
import { jpegBytes, partnerWithToken, sha256, startedCase, uploadEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const kek = (id: string): KeyEncryptionKey => ({ id, key: randomBytes(32) });
const asVariable = (keys: KeyEncryptionKey[]) => keys.map((entry) => `${entry.id}:${entry.key.toString('base64')}`).join(',');

async function readAll(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const OLD = kek('2026-01');
const NEW = kek('2026-07');

/** An app sealing under OLD and a partner of it, for the describe block that calls it. */
function appWithOldKey() {
  const fixture = {} as { test: TestApp; acme: Partner };
  beforeAll(async () => {
    fixture.test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', EVIDENCE_KEYS: asVariable([OLD]) });
    fixture.acme = await partnerWithToken(fixture.test, 'Acme');
  });
  afterAll(() => fixture.test.close());
  return fixture;
}

describe('key rotation and encrypting earlier plaintext evidence', () => {
  const fixture = appWithOldKey();
  let test: TestApp;
  let acme: Partner;
  beforeAll(() => {
    ({ test, acme } = fixture);
  });

  const vaultWith = async (keys: KeyEncryptionKey[]) => createEvidenceVault(await createEvidenceStorage({ kind: 'filesystem', dir: test.evidenceDir }), createEvidenceKeyRing(keys, test.dependencies.secretsKey));
  const upload = async (bytes: Buffer) => {
    const started = await startedCase(test, acme);
    const response = await uploadEvidence(test, started.captureToken, 'DocumentFront', bytes, 'front.jpg');
    expect(response.statusCode).toBe(201);
    return response.json<{ id: string }>().id;
  };
  const rowOf = async (id: string) => (await test.db.select().from(evidence).where(eq(evidence.id, id)))[0]!;

  it('rekey re-seals every data key under the newest key, leaves the objects as they were, reports progress and resumes', async () => {
    const bytes = [jpegBytes(3000), jpegBytes(5000)];
    const ids = [await upload(bytes[0]!), await upload(bytes[1]!)];
    const before = await Promise.all(ids.map(rowOf));
    expect(before.map((row) => row.dataKeyId)).toEqual(['2026-01', '2026-01']);
    const objectBefore = await readFile(join(test.evidenceDir, 'objects', ...before[0]!.storageKey.split('/')));

    const rotated = await vaultWith([NEW, OLD]);
    const progress: { done: number; total: number }[] = [];
    const result = await rekeyEvidence(test.db, rotated, (step) => progress.push(step));
    expect(result).toEqual({ rekeyed: 2, keyId: '2026-07' });
    expect(progress.at(-1)).toEqual({ done: 2, total: 2 });
    const after = await Promise.all(ids.map(rowOf));
    expect(after.map((row) => row.dataKeyId)).toEqual(['2026-07', '2026-07']);
    expect(after[0]!.storageKey).toBe(before[0]!.storageKey);
    expect((await readFile(join(test.evidenceDir, 'objects', ...after[0]!.storageKey.split('/')))).equals(objectBefore)).toBe(true);
    // Only the new key is needed from now on.
    const newOnly = await vaultWith([NEW]);
    for (const [index, row] of after.entries()) expect((await readAll((await newOnly.open(row)).body)).equals(bytes[index]!)).toBe(true);
    // Nothing left: a second run (a resumed one) changes nothing.
    expect(await rekeyEvidence(test.db, rotated)).toEqual({ rekeyed: 0, keyId: '2026-07' });
  });

  it('encrypt-existing turns plaintext objects of earlier versions into ciphertext under a new key, removes the plaintext, and is resumable', async () => {
    const vault = await vaultWith([OLD]);
    const bytes = jpegBytes(70_000);
    const id = await upload(bytes);
    const row = await rowOf(id);
    // What an earlier version left: the plaintext file, the row marked 'none'.
    const plaintextPath = join(test.evidenceDir, 'objects', ...row.storageKey.split('/'));
    await writeFile(plaintextPath, bytes);
    await test.db.update(evidence).set({ encryption: 'none', dataKeyId: null, sealedDataKey: null }).where(eq(evidence.id, id));
    const legacy = await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${id}/file`, headers: acme.headers });
    expect(legacy.statusCode).toBe(200);
    expect(sha256(legacy.rawPayload)).toBe(sha256(bytes));

    expect(await encryptExistingEvidence(test.db, vault)).toEqual({ encrypted: 1 });
    const encrypted = await rowOf(id);
    expect(encrypted).toMatchObject({ encryption: 'aes-256-gcm-stream-v1', dataKeyId: '2026-01' });
    expect(encrypted.storageKey).not.toBe(row.storageKey);
    await expect(readFile(plaintextPath)).rejects.toMatchObject({ code: 'ENOENT' });
    const stored = await readFile(join(test.evidenceDir, 'objects', ...encrypted.storageKey.split('/')));
    expect(stored.includes(bytes.subarray(0, 200))).toBe(false);
    const download = await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${id}/file`, headers: acme.headers });
    expect(download.statusCode).toBe(200);
    expect(download.headers.etag).toBe(`"${sha256(bytes)}"`);
    expect(sha256(download.rawPayload)).toBe(sha256(bytes));
    expect(await encryptExistingEvidence(test.db, vault)).toEqual({ encrypted: 0 });
  });

  it('answers 500 EVIDENCE_UNREADABLE for a tampered object, audits it, and sends no byte of it', async () => {
    const id = await upload(jpegBytes(4000));
    const row = await rowOf(id);
    const path = join(test.evidenceDir, 'objects', ...row.storageKey.split('/'));
    const stored = await readFile(path);
    stored[stored.length - 20] = stored[stored.length - 20]! ^ 0x01;
    await writeFile(path, stored);
    const response = await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${id}/file`, headers: acme.headers });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'EVIDENCE_UNREADABLE', evidenceId: id });
    const audit = await test.db.select().from(auditLog).where(eq(auditLog.target, `evidence:${id}`));
    expect(audit.map((entry) => entry.action)).toContain('evidence.unreadable');
    expect(audit.map((entry) => entry.action)).not.toContain('evidence.downloaded');
  });
});

describeNeeding('DATABASE_URL')('cli evidence:rekey and evidence:encrypt-existing (PostgreSQL)', () => {
  const fixture = appWithOldKey();
  let test: TestApp;
  let acme: Partner;
  beforeAll(() => {
    ({ test, acme } = fixture);
  });

  it('re-seals under the newest key with progress on stderr and one JSON object on stdout', async () => {
    const started = await startedCase(test, acme);
    const uploaded = await uploadEvidence(test, started.captureToken, 'DocumentFront', jpegBytes(3000), 'front.jpg');
    const { id } = uploaded.json<{ id: string }>();
    const env = { DATABASE_URL: test.dependencies.databaseUrl!, SECRETS_KEY: test.dependencies.secretsKey.toString('hex'), EVIDENCE_DIR: test.evidenceDir, EVIDENCE_KEYS: asVariable([NEW, OLD]) };
    const rekey = await runCliProcess({ cwd: serviceDir, args: ['evidence:rekey'], env });
    expect(rekey.code).toBe(0);
    expect(JSON.parse(rekey.stdout)).toEqual({ rekeyed: 1, keyId: '2026-07' });
    expect(rekey.stderr).toContain('rekeyed: 1/1');
    expect((await test.db.select().from(evidence).where(eq(evidence.id, id)))[0]!.dataKeyId).toBe('2026-07');
    const encrypt = await runCliProcess({ cwd: serviceDir, args: ['evidence:encrypt-existing'], env });
    expect(JSON.parse(encrypt.stdout)).toEqual({ encrypted: 0 });
    const bad = await runCliProcess({ cwd: serviceDir, args: ['evidence:rekey'], env: { ...env, EVIDENCE_KEYS: 'k1:short' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/EVIDENCE_KEYS/);
  });
});
