import { openDatabase, selectRows, type Database } from '@svc/db';
import { describeNeeding } from '@svc/db/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrationsFolder, schemaName } from '../../src/db/migrations.js';
import { createCase, getCase, partnerWithToken, type Partner } from '../case-helpers.js';
import { BASE, buildTestApp, type TestApp } from '../helpers.js';

/**
 * A session terminated under a request (a failover, a restart, an operator's
 * pg_terminate_backend) is the database's moment, not a fault in the request: the caller is told
 * 503 and when to retry, and the retry works on a fresh connection. Needs real PostgreSQL.
 */
describeNeeding('DATABASE_URL')('a database session lost under a request (PostgreSQL)', () => {
  let test: TestApp;
  let partner: Partner;
  let holder: Database;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    partner = await partnerWithToken(test, 'Acme');
    // A session of its own, outside the service's pool: the other party holding the case's row.
    holder = await openDatabase({ driver: 'postgres', url: test.dependencies.databaseUrl!, maxConnections: 1, skipMigrations: true, migrationsFolder, schemaName });
  });
  afterAll(async () => {
    await holder?.close();
    await test?.close();
  });

  const cancel = (caseId: string) => test.app.inject({ method: 'POST', url: `${BASE}/verifications/${caseId}/cancel`, headers: partner.headers, payload: { reason: 'customer left' } });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when its session is terminated mid-transaction, and the retry succeeds', async () => {
    const created = await createCase(test, partner);
    expect(created.statusCode).toBe(201);
    const { caseId } = created.json<{ caseId: string }>();

    let answer: Promise<Awaited<ReturnType<typeof cancel>>> | undefined;
    // The cancel's transaction waits for the row: a known moment at which to terminate its session.
    await holder.db.transaction(async (tx) => {
      await tx.execute(sql`select 1 from identity.verification_cases where id = ${caseId} for update`);
      const [{ pid } = { pid: 0 }] = await selectRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`);
      answer = cancel(caseId).then((response) => response);
      for (;;) {
        const blocked = await selectRows<{ pid: number }>(tx, sql`select pid from pg_stat_activity where ${pid}::int = any(pg_blocking_pids(pid))`);
        if (blocked.length > 0) {
          await tx.execute(sql`select pg_terminate_backend(${blocked[0]!.pid}::int)`);
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    });

    const response = await answer!;
    expect(response.statusCode, response.body).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', detail: 'A service this one depends on could not be reached while answering; retry the request.' });
    expect(response.body).not.toContain('terminat');
    // Nothing of the cut transaction stayed, and the retry goes through on a fresh connection.
    expect((await getCase(test, partner, caseId)).json<{ status: string }>().status).toBe('SessionIssued');
    const retried = await cancel(caseId);
    expect(retried.statusCode, retried.body).toBe(204);
    expect((await getCase(test, partner, caseId)).json<{ status: string }>().status).toBe('Cancelled');
  });
});
