import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { eq } from 'drizzle-orm';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidence } from '../src/db/schema.js';
import { sealedSize } from '../src/domain/evidence/envelope-stream.js';
import { getCase, jpegBytes, partnerWithToken, sha256, startedCase, uploadEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

const BUCKET = 'identity-evidence';

/** The app configured the way several instances share evidence: an S3-compatible bucket (s3rver on loopback). */
describe('evidence in S3-compatible storage, through the API', () => {
  let scratch: string;
  let server: S3rver;
  let endpoint: string;
  let test: TestApp;
  let acme: Partner;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'identity-s3-'));
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch, 's3'), configureBuckets: [{ name: BUCKET }] });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', EVIDENCE_S3_BUCKET: BUCKET, EVIDENCE_S3_ENDPOINT: endpoint, DATA_DIR: scratch });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(async () => {
    await test.close();
    await server.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('stores the upload encrypted in the bucket under the server-chosen key and downloads the same bytes', async () => {
    const started = await startedCase(test, acme);
    const bytes = jpegBytes(400_000);
    const uploaded = await uploadEvidence(test, started.captureToken, 'DocumentFront', bytes, 'front.jpg');
    expect(uploaded.statusCode).toBe(201);
    const { id } = uploaded.json<{ id: string }>();
    const [row] = await test.db.select().from(evidence).where(eq(evidence.id, id));
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: row!.storageKey }));
    // The bucket holds ciphertext only: neither the bytes nor their type are visible there.
    const stored = Buffer.from(await object.Body!.transformToByteArray());
    expect(stored.length).toBe(sealedSize(bytes.length));
    expect(stored.includes(bytes.subarray(0, 64))).toBe(false);
    expect(object.ContentType).toBe('application/octet-stream');
    client.destroy();

    const download = await test.app.inject({ method: 'GET', url: `${BASE}/evidence/${id}/file`, headers: acme.headers });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-length']).toBe(String(bytes.length));
    expect(download.headers.etag).toBe(`"${sha256(bytes)}"`);
    expect(sha256(download.rawPayload)).toBe(sha256(bytes));
    expect((await getCase(test, acme, started.caseId)).json()).toMatchObject({ documentEvidence: [expect.objectContaining({ id, sha256Hash: sha256(bytes) })] });
  });
});
