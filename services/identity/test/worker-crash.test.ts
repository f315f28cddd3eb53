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


// The first OCR answer of each case is held just under the call's time limit: had worker A
// lived, those answers would have reached it and each case been decided by A with one OCR call;
// only a takeover after A's death can produce the second OCR calls asserted below.
const CHECKS_TIMEOUT_MS = 2000;
const FIRST_OCR_DELAY_MS = 1900;
/** The service's default JOB_LEASE_MS (config.ts): the test runs what production runs. */
const DEFAULT_JOB_LEASE_MS = 6000;
/** Cases A holds when it is killed. */
const CASES = 3;
/** What a crash may cost: every case decided within this of the new worker's start (its start-up from source included). */
const DECIDED_WITHIN_MS = 15_000;
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
  }, 180_000);

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

  it('costs seconds: a second worker takes the jobs over once the short lease runs out and decides each case exactly once', async () => {
    const env = {
      DATABASE_URL: test.dependencies.databaseUrl!,
      // The app's key: evidence keys derive from it, and the worker must open what the app stored.
      SECRETS_KEY: test.dependencies.secretsKey.toString('hex'),
      CHECKS_PROVIDER: 'http',
      CHECKS_OCR_URL: fake.urls.ocrUrl,
      CHECKS_FACE_MATCH_URL: fake.urls.faceMatchUrl,
      CHECKS_LIVENESS_URL: fake.urls.livenessUrl,
      CHECKS_TIMEOUT_MS: String(CHECKS_TIMEOUT_MS),
      EXPIRY_SWEEP_INTERVAL_MS: '3600000',
      LOG_LEVEL: 'warn',
      // Both processes on this machine: the worker reads the evidence the in-process app stored.
      EVIDENCE_DIR: test.evidenceDir,
      DATA_DIR: dataDir,
    };
    fake.plan('ocr', ...Array.from({ length: CASES }, () => ({ delayMs: FIRST_OCR_DELAY_MS })));
    const caseIds: string[] = [];
    for (let index = 0; index < CASES; index++) caseIds.push((await submittedCase(test, live)).caseId);

    const workerA = spawnWorker(env);
    workers.push(workerA);
    await waitFor('OCR requests of every case from worker A', () => fake.received('ocr').length === CASES, { timeoutMs: WORKER_START_MS, worker: workerA });
    // A is in the middle of every job: the OCR server has the requests and has not answered yet.
    const killedAt = Date.now();
    expect(await stopWorker(workerA, 'SIGKILL', 5000)).toEqual({ code: null, signal: 'SIGKILL' });

    const abandoned = await Promise.all(caseIds.map(jobOf));
    for (const [index, job] of abandoned.entries()) {
      expect(await statusOf(caseIds[index]!)).toBe('AutomatedChecksRunning');
      expect(job).toMatchObject({ status: 'in_flight', attemptCount: 1, lastAttemptAt: null });
      // A short lease (renewed every third of it while A lived), not one sized for the whole checks run.
      expect(job.leaseExpiresAt!.getTime()).toBeLessThanOrEqual(killedAt + DEFAULT_JOB_LEASE_MS);
    }
    const lastLeaseExpiry = Math.max(...abandoned.map((job) => job.leaseExpiresAt!.getTime()));

    const workerB = spawnWorker(env);
    const startedAt = Date.now();
    workers.push(workerB);
    const undecided = async () => (await Promise.all(caseIds.map(statusOf))).filter((status) => status !== 'Approved').length;
    await waitFor('approval of every case by worker B', async () => (await undecided()) === 0, { timeoutMs: DECIDED_WITHIN_MS + 5000, worker: workerB });
    const decidedAt = Date.now();
    console.info(`checks takeover: ${CASES} cases decided ${decidedAt - startedAt} ms after worker B started, ${decidedAt - killedAt} ms after A was killed (lease ${DEFAULT_JOB_LEASE_MS} ms)`);
    expect(decidedAt - startedAt, 'decided after the new worker started').toBeLessThan(DECIDED_WITHIN_MS);
    // The handler's transaction decides the case; the job's own outcome is recorded just after it.
    await waitFor('the jobs recorded by worker B', async () => (await Promise.all(caseIds.map(jobOf))).every((job) => job.status !== 'in_flight'), { timeoutMs: 5000, worker: workerB });

    for (const caseId of caseIds) {
      expect(await jobOf(caseId)).toMatchObject({ status: 'succeeded', attemptCount: 2, lastError: null });
      const eventTypes = (await test.db.select({ eventType: caseEvents.eventType }).from(caseEvents).where(eq(caseEvents.caseId, caseId))).map((row) => row.eventType);
      expect(eventTypes.filter((type) => type === 'verification.automated_checks_running')).toHaveLength(1);
      expect(eventTypes.filter((type) => type === 'verification.approved')).toHaveLength(1);
      expect(await test.db.select().from(ocrResults).where(eq(ocrResults.caseId, caseId))).toHaveLength(1);
    }
    expect(fake.received('ocr')).toHaveLength(2 * CASES);
    expect(fake.received('face-match')).toHaveLength(CASES);
    expect(fake.received('liveness')).toHaveLength(CASES);
    // B called OCR only once A's leases had run out: a takeover, not a second worker on a live lease.
    const firstFromB = Math.min(...fake.received('ocr').slice(CASES).map((call) => call.receivedAt.getTime()));
    expect(firstFromB).toBeGreaterThanOrEqual(Math.min(...abandoned.map((job) => job.leaseExpiresAt!.getTime())));
    expect(lastLeaseExpiry).toBeGreaterThan(killedAt);

    // The worker handles SIGTERM: it finishes its (now empty) batch, closes the database and exits 0.
    expect(await stopWorker(workerB, 'SIGTERM', 5000)).toEqual({ code: 0, signal: null });
  }, 45_000);
});
