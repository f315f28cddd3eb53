import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { describeNeeding } from '@svc/db/testing';
import { and, eq } from 'drizzle-orm';
import S3rver from 's3rver';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { caseEvents, evidence, jobs, verificationCases } from '../src/db/schema.js';
import { getCase, partnerWithToken, submittedCase, type Partner } from './case-helpers.js';
import { isRunning, spawnWorker, stopWorker, waitFor, type WorkerProcess } from './fixtures/worker-process.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

const BUCKET = 'identity-evidence';
// The config wants the lease above three inference calls (3 × CHECKS_TIMEOUT_MS).
const CHECKS_TIMEOUT_MS = 1000;
const JOB_LEASE_MS = 3500;
/** Start-up of a worker from source (tsx compiles on the fly) on a slow machine. */
const WORKER_START_MS = 20_000;

/**
 * Worker A reaches the object store through a listener that accepts connections and never
 * answers, so it is certain to be inside the redaction (data keys destroyed, objects not yet
 * deleted) when it is killed; worker B, on the real store, must take the job over and finish.
 */
describeNeeding('DATABASE_URL')('a worker killed with SIGKILL in the middle of a redaction (PostgreSQL)', () => {
  let test: TestApp;
  let scratch: string;
  let s3: S3rver;
  let endpoint: string;
  let blackHole: Server;
  let blackHoleEndpoint: string;
  const sockets = new Set<Socket>();
  let acme: Partner;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'identity-redaction-crash-'));
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch, 's3'), configureBuckets: [{ name: BUCKET }] });
    endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    blackHole = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    blackHoleEndpoint = `http://127.0.0.1:${(blackHole.address() as { port: number }).port}`;
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', EVIDENCE_S3_BUCKET: BUCKET, EVIDENCE_S3_ENDPOINT: endpoint, DATA_DIR: scratch });
    acme = await partnerWithToken(test, 'Acme', undefined, { sandbox: true });
  }, 180_000);

  afterAll(async () => {
    for (const worker of workers) if (isRunning(worker)) await stopWorker(worker, 'SIGKILL', 5000).catch(() => undefined);
    await test?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => blackHole?.close(resolve));
    await s3?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }, 20_000);

  const objectsInBucket = async () => {
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
    try {
      return (await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).KeyCount ?? 0;
    } finally {
      client.destroy();
    }
  };

  it('resumes on another worker once the lease runs out and completes exactly once', async () => {
    const { caseId } = await submittedCase(test, acme, 'crash#approve');
    await test.worker.runJobs();
    expect((await getCase(test, acme, caseId)).json()).toMatchObject({ status: 'Approved' });
    expect(await objectsInBucket()).toBe(3);
    const accepted = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${caseId}/redact`, headers: acme.headers });
    expect(accepted.statusCode).toBe(202);

    const env = {
      DATABASE_URL: test.dependencies.databaseUrl!,
      SECRETS_KEY: test.dependencies.secretsKey.toString('hex'),
      CHECKS_PROVIDER: 'none',
      CHECKS_TIMEOUT_MS: String(CHECKS_TIMEOUT_MS),
      JOB_LEASE_MS: String(JOB_LEASE_MS),
      EXPIRY_SWEEP_INTERVAL_MS: '3600000',
      RETENTION_SWEEP_INTERVAL_MS: '3600000',
      LOG_LEVEL: 'warn',
      EVIDENCE_S3_BUCKET: BUCKET,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      DATA_DIR: scratch,
    };
    const workerA = spawnWorker({ ...env, EVIDENCE_S3_ENDPOINT: blackHoleEndpoint });
    workers.push(workerA);
    const keysDestroyed = async () => (await test.db.select({ key: evidence.sealedDataKey }).from(evidence).where(eq(evidence.caseId, caseId))).every((row) => row.key === null);
    await waitFor('the data keys destroyed by worker A', keysDestroyed, { timeoutMs: WORKER_START_MS, worker: workerA });
    await waitFor('worker A waiting on the object store', () => sockets.size > 0, { timeoutMs: 10_000, worker: workerA });
    expect(await stopWorker(workerA, 'SIGKILL', 5000)).toEqual({ code: null, signal: 'SIGKILL' });

    // Killed mid-way: keys gone (the evidence is already unreadable), objects still there, not marked redacted.
    const [halfway] = await test.db.select().from(verificationCases).where(eq(verificationCases.id, caseId));
    expect(halfway!.redactedAt).toBeNull();
    expect(await objectsInBucket()).toBe(3);
    const [job] = await test.db.select().from(jobs).where(and(eq(jobs.subjectId, caseId), eq(jobs.kind, 'redact-case')));
    expect(job!.status).toBe('in_flight');

    const workerB = spawnWorker({ ...env, EVIDENCE_S3_ENDPOINT: endpoint });
    workers.push(workerB);
    const redacted = async () => (await test.db.select({ at: verificationCases.redactedAt }).from(verificationCases).where(eq(verificationCases.id, caseId)))[0]?.at != null;
    await waitFor('the redaction finished by worker B', redacted, { timeoutMs: WORKER_START_MS + JOB_LEASE_MS + 10_000, worker: workerB });
    await waitFor('the job recorded as succeeded', async () => (await test.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]?.status === 'succeeded', { timeoutMs: 10_000, worker: workerB });
    await stopWorker(workerB, 'SIGTERM', 10_000);

    expect(await objectsInBucket()).toBe(0);
    expect(await test.db.select().from(caseEvents).where(and(eq(caseEvents.caseId, caseId), eq(caseEvents.eventType, 'verification.redacted')))).toHaveLength(1);
    const [finished] = await test.db.select().from(jobs).where(eq(jobs.id, job!.id));
    expect(finished!.attemptCount).toBe(2);
    expect((await getCase(test, acme, caseId)).json()).toMatchObject({ status: 'Approved', redactedAt: expect.any(String), ocrResult: { extractedFieldsJson: '{}', mrzRawText: null } });
  }, 90_000);
});
