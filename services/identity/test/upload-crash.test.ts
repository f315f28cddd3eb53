import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { openDatabase, type Database } from '@svc/db';
import { describeNeeding } from '@svc/db/testing';
import { sql, type SQL } from 'drizzle-orm';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { CAPTURE, startCaptureService, uploadBody, waitFor, type CaptureService } from './fixtures/capture-service.js';
import { startCommitReplyCutter, type CommitReplyCutter } from './fixtures/commit-reply-cutter.js';

const BUCKET = 'identity-evidence';
/**
 * Short, so the sweep's work is seen within the test (it runs every SWEEP_MS), yet long enough for
 * an upload to be stored and recorded on a very busy machine: at 1 s, a load of 28 on two cores
 * made the crash tests' uploads answer 503 before reaching the step they were to die at.
 */
const GRACE_MS = 5000;
const SWEEP_MS = 200;
/** Start-up of the service from source on a loaded two-core machine, then the sweep. */
const STEP_TIMEOUT_MS = 120_000;

/**
 * Evidence is whole or absent: the API process killed with SIGKILL at each step of an upload
 * (FAULT_CRASH_AT), the COMMIT's reply lost after the server committed, a session terminated
 * during COMMIT, and an upload outlasting its grace while the sweep runs. After each, every
 * evidence row's object downloads with the recorded SHA-256, every client that got 201 finds its
 * evidence, and every object no row names is removed by the abandoned-upload sweep.
 */
describeNeeding('DATABASE_URL')('an upload interrupted at each step (PostgreSQL)', () => {
  for (const store of ['filesystem', 's3'] as const) {
    describe(`on the ${store} store`, () => {
      let scratch: string;
      let s3: S3rver | undefined;
      let s3Env: Record<string, string> = {};
      let cutter: CommitReplyCutter;
      let edge: CaptureService;
      let database: Database;

      beforeAll(async () => {
        scratch = await mkdtemp(join(tmpdir(), 'identity-upload-crash-'));
        if (store === 's3') {
          process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
          process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
          s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch, 's3'), configureBuckets: [{ name: BUCKET }] });
          const endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
          s3Env = { EVIDENCE_S3_BUCKET: BUCKET, EVIDENCE_S3_ENDPOINT: endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
        }
        const server = new URL(process.env.DATABASE_URL!);
        cutter = await startCommitReplyCutter({ host: server.hostname, port: Number(server.port || 5432) });
        edge = await startCaptureService(
          { ...s3Env, EVIDENCE_UPLOAD_GRACE_MS: String(GRACE_MS), EVIDENCE_UPLOAD_SWEEP_INTERVAL_MS: String(SWEEP_MS) },
          { serviceDatabaseUrl: (url) => Object.assign(new URL(url), { host: `127.0.0.1:${cutter.port}` }).toString() },
        );
        database = await openDatabase({ driver: 'postgres', url: edge.databaseUrl!, migrationsFolder, schemaName, skipMigrations: true, maxConnections: 3 });
      }, STEP_TIMEOUT_MS);

      afterAll(async () => {
        await database?.close();
        await edge?.close();
        await cutter?.close();
        await s3?.close();
        if (scratch) await rm(scratch, { recursive: true, force: true });
      }, 30_000);

      const storedKeys = async (): Promise<string[]> => {
        if (store === 's3') {
          const client = new S3Client({ endpoint: s3Env.EVIDENCE_S3_ENDPOINT!, region: 'us-east-1', forcePathStyle: true });
          try {
            return ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((object) => object.Key!).sort();
          } finally {
            client.destroy();
          }
        }
        const objects = join(edge.evidenceDir, 'objects');
        const entries = await readdir(objects, { recursive: true, withFileTypes: true });
        return entries.filter((entry) => entry.isFile()).map((entry) => relative(objects, join(entry.parentPath, entry.name))).sort();
      };
      /** Removes an object behind the service's back, as the abandoned-upload sweep does. */
      const deleteStored = async (key: string) => {
        if (store === 's3') {
          const client = new S3Client({ endpoint: s3Env.EVIDENCE_S3_ENDPOINT!, region: 'us-east-1', forcePathStyle: true });
          try {
            await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
          } finally {
            client.destroy();
          }
        } else {
          await rm(join(edge.evidenceDir, 'objects', ...key.split('/')));
        }
      };
      /** A transaction on a connection of its own that runs `statement` and holds its locks until released, then rolls back as a killed process's would. */
      const holdLocks = (statement: SQL) => {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let held!: () => void;
        const holding = new Promise<void>((resolve) => (held = resolve));
        const rolledBack = new Error('rolled back');
        const ended = database.db
          .transaction(async (tx) => {
            await tx.execute(statement);
            held();
            await released;
            throw rolledBack;
          })
          .catch((error: unknown) => {
            if (error !== rolledBack) throw error;
          });
        return { holding: Promise.race([holding, ended]), release: () => (release(), ended) };
      };
      /** Whether a statement of the service on `table` waits for a row lock (this test's holders hold theirs; its sweeps skip locked rows). */
      const waitsOnLock = async (table: string) =>
        (await database.rows(sql`select pid from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid() and query ilike ${`%${table}%`}`)).length > 0;
      const rows = () => database.rows<{ id: string; storage_key: string; sha256_hash: string }>(sql`select id::text, storage_key, sha256_hash from identity.evidence order by storage_key`);
      const intents = async () => (await database.rows<{ n: number }>(sql`select count(*)::int as n from identity.evidence_uploads`))[0]!.n;

      const upload = (captureToken: string, bytes = 300_000) => {
        const { payload, contentType } = uploadBody(bytes);
        return fetch(`${edge.service.baseUrl}${CAPTURE}/evidence`, { method: 'POST', headers: { authorization: `Bearer ${captureToken}`, 'content-type': contentType }, body: payload });
      };
      const download = async (id: string) => {
        const response = await fetch(`${edge.service.baseUrl}/api/partner/v1/evidence/${id}/file`, { headers: edge.partner });
        return response.status === 200 ? createHash('sha256').update(Buffer.from(await response.arrayBuffer())).digest('hex') : `status ${response.status}`;
      };
      /** Every row's object reads back with its hash, and once the sweep has run no object is without a row. */
      const wholeOrAbsent = async () => {
        await waitFor('the sweep to leave only recorded objects and no intent', async () => {
          const [keys, recorded] = await Promise.all([storedKeys(), rows()]);
          return (await intents()) === 0 && JSON.stringify(keys) === JSON.stringify(recorded.map((row) => row.storage_key));
        }, 60_000);
        for (const row of await rows()) expect({ id: row.id, sha256: await download(row.id) }).toEqual({ id: row.id, sha256: row.sha256_hash });
      };

      // First, in the process as started (no worker in it): only the upload's own transaction says COMMIT.
      it('answers 201 with the evidence findable when the COMMIT committed but its reply was lost', async () => {
        const captureToken = await edge.newCaptureToken();
        const cut = cutter.armed();
        const answer = await upload(captureToken);
        await cut;
        const body = (await answer.json()) as { id: string; sha256Hash: string };
        expect(answer.status).toBe(201);
        expect(await download(body.id)).toBe(body.sha256Hash);
        await wholeOrAbsent();
      }, STEP_TIMEOUT_MS);

      const crashPoints = store === 'filesystem' ? ['evidence-received', 'evidence-synced', 'evidence-stored', 'evidence-recorded'] : ['evidence-received', 'evidence-stored', 'evidence-recorded'];
      for (const point of crashPoints) {
        it(`killed with SIGKILL at ${point}: recorded and readable, or absent and swept`, async () => {
          await edge.service.stop('SIGKILL');
          await edge.restart({ FAULT_CRASH_AT: point, WORKER_IN_PROCESS: 'true' });
          const before = (await rows()).length;
          const captureToken = await edge.newCaptureToken();
          await expect(upload(captureToken)).rejects.toThrow();
          await edge.service.exited;
          expect(edge.service.child.signalCode).toBe('SIGKILL');
          // What the dead process left, before any sweep: an announcement from the moment it was
          // made until the commit took it, an object without a row once renamed or PUT.
          const announced = point === 'evidence-synced' || point === 'evidence-stored';
          const recorded = point === 'evidence-recorded';
          expect(await intents()).toBe(announced ? 1 : 0);
          expect((await rows()).length).toBe(before + (recorded ? 1 : 0));
          expect((await storedKeys()).length - (await rows()).length).toBe(point === 'evidence-stored' ? 1 : 0);
          await edge.restart({ WORKER_IN_PROCESS: 'true' });
          await wholeOrAbsent();
        }, STEP_TIMEOUT_MS);
      }

      it('leaves nothing recorded and the object swept when the session is terminated during COMMIT', async () => {
        // A deferred trigger makes COMMIT wait on a lock this test holds, so the session is terminated inside COMMIT.
        await database.rows(sql`create or replace function identity.test_hold_commit() returns trigger language plpgsql as $$ begin perform pg_advisory_xact_lock(46046); return null; end $$`);
        await database.rows(sql`create constraint trigger test_hold_commit after insert on identity.evidence deferrable initially deferred for each row execute function identity.test_hold_commit()`);
        try {
          const before = (await rows()).length;
          const captureToken = await edge.newCaptureToken();
          const { answering } = await database.db.transaction(async (holder) => {
            await holder.execute(sql`select pg_advisory_xact_lock(46046)`);
            const answering = upload(captureToken);
            let backend: number | undefined;
            await waitFor('the upload\'s COMMIT waiting on the lock', async () => {
              backend = (await database.rows<{ pid: number }>(sql`select pid from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory' and query ilike 'commit%'`))[0]?.pid;
              return backend !== undefined;
            }, 30_000);
            await database.rows(sql`select pg_terminate_backend(${backend!})`);
            return { answering };
          });
          const answer = await answering;
          expect(answer.status).toBe(503);
          expect(answer.headers.get('retry-after')).toBe('1');
          expect((await rows()).length).toBe(before);
        } finally {
          await database.rows(sql`drop trigger test_hold_commit on identity.evidence`);
          await database.rows(sql`drop function identity.test_hold_commit()`);
        }
        await wholeOrAbsent();
      }, STEP_TIMEOUT_MS);

      it('refuses to record an upload that outlasted its grace while the sweep removed its object', async () => {
        const captureToken = await edge.newCaptureToken();
        const before = (await rows()).length;
        // The upload's transaction waits for its case's row lock, held here, past the grace.
        // Returned wrapped: awaited inside, the answer would wait for the lock it needs released.
        const { answering } = await database.db.transaction(async (holder) => {
          await holder.execute(sql`select id from identity.verification_cases for update`);
          const answering = upload(captureToken);
          await waitFor('the upload announced', async () => (await intents()) === 1, 30_000);
          await waitFor('the sweep to take the announced upload', async () => (await intents()) === 0, 60_000);
          return { answering };
        });
        const answer = await answering;
        expect(answer.status).toBe(503);
        expect((await rows()).length).toBe(before);
        await wholeOrAbsent();
        const again = await upload(captureToken);
        expect(again.status).toBe(201);
        const body = (await again.json()) as { id: string; sha256Hash: string };
        expect(await download(body.id)).toBe(body.sha256Hash);
      }, STEP_TIMEOUT_MS);

      // Last: it restarts the service with a grace long enough to hold an announcement while young.
      it('refuses an announcement a sweep held past the grace, deleted the object of and died before committing', async () => {
        // No worker in the process: the only sweep is the one this test plays, and the handler removes what it refuses.
        const graceMs = 20_000;
        await edge.service.stop('SIGKILL');
        await edge.restart({ EVIDENCE_UPLOAD_GRACE_MS: String(graceMs), WORKER_IN_PROCESS: 'false' });
        const captureToken = await edge.newCaptureToken();
        const before = (await rows()).length;
        // The recording is held at its case's lock until the announcement is locked here, young,
        // as a sweep locks one the moment it comes of age; then it waits on that lock.
        const caseLock = holdLocks(sql`select id from identity.verification_cases for update`);
        await caseLock.holding;
        const answering = upload(captureToken);
        await waitFor('the stored upload waiting on its case', () => waitsOnLock('verification_cases'), 30_000);
        const [{ storage_key: storageKey } = { storage_key: '' }] = await database.rows<{ storage_key: string }>(sql`select storage_key from identity.evidence_uploads`);
        const sweep = holdLocks(sql`select storage_key from identity.evidence_uploads where storage_key = ${storageKey} for update`);
        await sweep.holding;
        await caseLock.release();
        await waitFor('the recording waiting on the announcement', () => waitsOnLock('evidence_uploads'), 30_000);
        // The sweep's work: the object deleted, the grace passed; then it dies before its commit.
        await deleteStored(storageKey);
        await waitFor('the grace to pass', async () => {
          const [age] = await database.rows<{ past: boolean }>(sql`select clock_timestamp() - started_at > make_interval(secs => ${graceMs / 1000}) as past from identity.evidence_uploads`);
          return age?.past === true;
        }, 60_000);
        await sweep.release();
        const answer = await answering;
        expect(answer.status).toBe(503);
        expect((await rows()).length).toBe(before);
        await wholeOrAbsent();
      }, STEP_TIMEOUT_MS);
    });
  }
});
