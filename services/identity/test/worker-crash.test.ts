import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { caseEvents, jobs, ocrResults } from '../src/db/schema.js';
import { getCase, partnerWithToken, submittedCase, type Partner } from './case-helpers.js';
import { startFakeInferenceServer, type FakeInferenceServer } from './fixtures/fake-inference-server.js';
import { buildTestApp, type TestApp } from './helpers.js';
import { isRunning, spawnWorker, stopWorker, waitFor, type WorkerProcess } from './fixtures/worker-process.js';
import { describeNeeding } from '@svc/db/testing';


// The shortest honest timings: the config wants the lease above three inference calls
// (3 × 2000 ms), and the first OCR answer is held just under the call's time limit. Had worker A
// lived, that answer would have reached it and the case been decided by A with one OCR call;
// only a takeover after A's death can produce the second OCR call asserted below.
const CHECKS_TIMEOUT_MS = 2000;
const JOB_LEASE_MS = 6500;
const FIRST_OCR_DELAY_MS = 1900;
/** The worker's own poll interval (leased-queue.ts default): how long after the lease runs out a waiting worker may take. */
const WORKER_POLL_MS = 1000;
/** Start-up of a worker from source (tsx compiles on the fly) on a slow machine. */
const WORKER_START_MS = 15_000;

describeNeeding('DATABASE_URL')('a worker process killed in the middle of a run-checks job (PostgreSQL)', () => {
  let test: TestApp;
  let fake: FakeInferenceServer;
  let live: Partner;
  let dataDir: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    // The in-process app only creates the tenant, the client and the case; its own worker never runs.
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', WORKER_IN_PROCESS: 'false' });
    fake = await startFakeInferenceServer();
    live = await partnerWithToken(test, 'Live');
    dataDir = await mkdtemp(join(tmpdir(), 'identity-worker-crash-'));
  }, 30_000);

  afterAll(async () => {
    for (const worker of workers) if (isRunning(worker)) await stopWorker(worker, 'SIGKILL', 5000).catch(() => undefined);
    await fake?.close();
    await test?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 20_000);

  const statusOf = async (caseId: string) => (await getCase(test, live, caseId)).json<{ status: string }>().status;
  const jobOf = async (caseId: string) => {
    const rows = await test.db.select().from(jobs).where(eq(jobs.subjectId, caseId));
    expect(rows).toHaveLength(1);
    return rows[0]!;
  };

  it('loses nothing: a second worker takes the job over once the lease runs out and decides the case exactly once', async () => {
    const env = {
      DATABASE_URL: test.dependencies.databaseUrl!,
      // The app's key: evidence keys derive from it, and the worker must open what the app stored.
      SECRETS_KEY: test.dependencies.secretsKey.toString('hex'),
      CHECKS_PROVIDER: 'http',
      CHECKS_OCR_URL: fake.urls.ocrUrl,
      CHECKS_FACE_MATCH_URL: fake.urls.faceMatchUrl,
      CHECKS_LIVENESS_URL: fake.urls.livenessUrl,
      CHECKS_TIMEOUT_MS: String(CHECKS_TIMEOUT_MS),
      JOB_LEASE_MS: String(JOB_LEASE_MS),
      EXPIRY_SWEEP_INTERVAL_MS: '3600000',
      LOG_LEVEL: 'warn',
      // Both processes on this machine: the worker reads the evidence the in-process app stored.
      EVIDENCE_DIR: test.evidenceDir,
      DATA_DIR: dataDir,
    };
    fake.plan('ocr', { delayMs: FIRST_OCR_DELAY_MS });
    const { caseId } = await submittedCase(test, live);

    const workerA = spawnWorker(env);
    workers.push(workerA);
    await waitFor('OCR request from worker A', () => fake.received('ocr').length === 1, { timeoutMs: WORKER_START_MS, worker: workerA });
    // A is in the middle of the job: the OCR server has the request and has not answered yet.
    expect(await stopWorker(workerA, 'SIGKILL', 5000)).toEqual({ code: null, signal: 'SIGKILL' });

    expect(await statusOf(caseId)).toBe('AutomatedChecksRunning');
    const abandoned = await jobOf(caseId);
    expect(abandoned).toMatchObject({ status: 'in_flight', attemptCount: 1, lastAttemptAt: null });
    const leaseExpiresAt = abandoned.leaseExpiresAt!;
    expect(leaseExpiresAt.getTime()).toBeGreaterThan(Date.now());

    const workerB = spawnWorker(env);
    workers.push(workerB);
    const settleMs = leaseExpiresAt.getTime() - Date.now() + WORKER_POLL_MS + 4000;
    await waitFor('approval by worker B', async () => (await statusOf(caseId)) === 'Approved', { timeoutMs: settleMs, worker: workerB });
    // The handler's transaction decides the case; the job's own outcome is recorded just after it.
    await waitFor('the job recorded by worker B', async () => (await jobOf(caseId))?.status !== 'in_flight', { timeoutMs: 5000, worker: workerB });

    const job = await jobOf(caseId);
    expect(job).toMatchObject({ status: 'succeeded', attemptCount: 2, lastError: null });
    expect(fake.received('ocr')).toHaveLength(2);
    expect(fake.received('face-match')).toHaveLength(1);
    expect(fake.received('liveness')).toHaveLength(1);
    // B called OCR only once A's lease had run out: a takeover, not a second worker on a live lease.
    expect(fake.received('ocr')[1]!.receivedAt.getTime()).toBeGreaterThanOrEqual(leaseExpiresAt.getTime());

    const eventTypes = (await test.db.select({ eventType: caseEvents.eventType }).from(caseEvents).where(eq(caseEvents.caseId, caseId))).map((row) => row.eventType);
    expect(eventTypes.filter((type) => type === 'verification.automated_checks_running')).toHaveLength(1);
    expect(eventTypes.filter((type) => type === 'verification.approved')).toHaveLength(1);
    expect(await test.db.select().from(ocrResults).where(eq(ocrResults.caseId, caseId))).toHaveLength(1);

    // The worker handles SIGTERM: it finishes its (now empty) batch, closes the database and exits 0.
    expect(await stopWorker(workerB, 'SIGTERM', 5000)).toEqual({ code: 0, signal: null });
  }, 45_000);
});
