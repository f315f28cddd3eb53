import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeNeeding } from '@svc/db/testing';
import { MAIL_JOB, messageIdOf } from '@svc/mailer';
import { selfSignedLoopbackCertificate, startSmtpSink, type SmtpSink } from '@svc/mailer/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobs } from '../src/db/schema.js';
import { createTenant } from '../src/domain/tenants/tenants.js';
import { killLeftovers, spawnWorker, stopWorker, waitFor, type WorkerProcess } from './fixtures/worker-process.js';
import { BASE, buildTestApp, PASSWORD, type TestApp } from './helpers.js';
import { MAIL_FROM } from './smtp-mail-fixture.js';

// The mail's lease: what worker B waits out before it takes over the mail worker A held.
const JOB_LEASE_MS = 3500;
// Start-up of a worker from source (tsx compiles on the fly) on a slow machine.
const WORKER_START_MS = 20_000;

/**
 * The standalone worker (src/worker.ts, as an operator runs it) is killed with SIGKILL while
 * the SMTP server holds its DATA reply: the message is on the wire, not yet accepted. The
 * mail must survive in the queue and arrive once, with its Message-ID, from the next worker.
 */
describeNeeding('DATABASE_URL')('the mail worker killed with SIGKILL in the middle of a send (PostgreSQL)', () => {
  const setUp = { workers: [] as WorkerProcess[] } as { test: TestApp; sink: SmtpSink; scratch: string; caFile: string; workers: WorkerProcess[] };
  beforeAll(async () => {
    setUp.scratch = await mkdtemp(join(tmpdir(), 'identity-mail-crash-'));
    const certificate = selfSignedLoopbackCertificate();
    setUp.caFile = join(setUp.scratch, 'smtp-ca.pem');
    await writeFile(setUp.caFile, certificate.certPem);
    setUp.sink = await startSmtpSink(certificate);
    setUp.test = await buildTestApp({ SMTP_URL: setUp.sink.url, MAIL_FROM, PUBLIC_BASE_URL: 'https://kyc.example.test', DATA_DIR: setUp.scratch });
  }, 120_000);
  afterAll(async () => {
    await killLeftovers(setUp.workers);
    await Promise.all([setUp.test?.close(), setUp.sink?.stop()]);
    if (setUp.scratch) await rm(setUp.scratch, { recursive: true, force: true });
  }, 20_000);

  it('keeps the mail queued and the next worker delivers it exactly once with the same Message-ID', async () => {
    const { test, sink, scratch, caFile, workers } = setUp;
    const email = `crash-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail: email, adminPassword: PASSWORD }, new Date()));
    const asked = await test.app.inject({ method: 'POST', url: `${BASE}/portal/password-reset`, payload: { email }, headers: { 'accept-language': 'en' } });
    expect(asked.statusCode).toBe(202);
    const [job] = await test.db.select().from(jobs).where(and(eq(jobs.kind, MAIL_JOB), eq(jobs.status, 'pending')));
    expect(job).toBeDefined();

    const env = {
      DATABASE_URL: test.dependencies.databaseUrl!,
      SECRETS_KEY: test.dependencies.secretsKey.toString('hex'),
      SMTP_URL: sink.url,
      MAIL_FROM,
      PUBLIC_BASE_URL: 'https://kyc.example.test',
      // How an operator trusts a mail server with a private CA; here the sink's self-signed certificate.
      NODE_EXTRA_CA_CERTS: caFile,
      CHECKS_PROVIDER: 'none',
      CHECKS_TIMEOUT_MS: '1000',
      JOB_LEASE_MS: String(JOB_LEASE_MS),
      MAIL_RETRY_SCHEDULE_MS: '0,1000',
      EXPIRY_SWEEP_INTERVAL_MS: '3600000',
      RETENTION_SWEEP_INTERVAL_MS: '3600000',
      LOG_LEVEL: 'warn',
      DATA_DIR: scratch,
    };
    sink.holdData();
    const workerA = spawnWorker(env);
    workers.push(workerA);
    await waitFor('worker A inside DATA, waiting for the reply', () => sink.held === 1, { timeoutMs: WORKER_START_MS, worker: workerA });
    expect(await stopWorker(workerA, 'SIGKILL', 5000)).toEqual({ code: null, signal: 'SIGKILL' });
    // The server saw the sender go before it answered: the message was never accepted.
    await waitFor('the sink to drop the unanswered message', () => sink.held === 0, { timeoutMs: 10_000 });
    sink.releaseData();
    expect(sink.messages).toHaveLength(0);
    expect((await test.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]?.status).toBe('in_flight');

    const workerB = spawnWorker(env);
    workers.push(workerB);
    const delivered = async () => (await test.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]?.status === 'succeeded';
    await waitFor('the mail sent by worker B', delivered, { timeoutMs: WORKER_START_MS + JOB_LEASE_MS + 10_000, worker: workerB });
    await stopWorker(workerB, 'SIGTERM', 10_000);

    const arrived = sink.messages.filter((message) => message.messageId === messageIdOf(job!.id, MAIL_FROM));
    expect(arrived).toHaveLength(1);
    expect(sink.messages).toHaveLength(1);
    expect(arrived[0]!.to).toMatchObject({ text: email });
    expect(arrived[0]!.subject).toBe('Reset your password');
    expect((await test.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]?.attemptCount).toBe(2);
  }, 90_000);
});
