import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '@svc/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadIdentityConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { databaseSchema, type IdentityDatabaseSchema } from '../src/db/schema.js';
import { createCredentialCache, CREDENTIALS_CHANNEL, type CredentialCache } from '../src/domain/common/credential-cache.js';
import { hashToken } from '@svc/accounts';
import { setTenantStatus } from '../src/domain/tenants/tenants.js';
import { partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, certificateHeader, type TestApp } from './helpers.js';
import { describeNeeding } from '@svc/db/testing';

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const cachedToken = (cache: CredentialCache, token: string) => cache.get(`at:${hashToken(token.replace(/^Bearer /, ''))}`);

describe('credential cache on one instance', () => {
  let test: TestApp;
  let partner: Partner;

  beforeAll(async () => {
    test = await buildTestApp();
    partner = await partnerWithToken(test);
  });
  afterAll(async () => {
    await test.close();
  });

  const list = () => test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: partner.headers });

  it('remembers a verified token once its channel is proven, and still checks the certificate each time', async () => {
    await waitFor('a cached token', async () => (await list()).statusCode === 200 && cachedToken(test.credentials, partner.token) !== undefined);
    const wrongCertificate = await test.app.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: { authorization: partner.headers.authorization, 'x-client-cert-thumbprint': 'a'.repeat(64) } });
    expect(wrongCertificate.statusCode).toBe(401);
  });

  it('forgets it the moment the token is revoked here', async () => {
    await waitFor('a cached token', async () => (await list()).statusCode === 200 && cachedToken(test.credentials, partner.token) !== undefined);
    const revoked = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/revoke`, headers: certificateHeader(partner.cert), payload: { token: partner.token } });
    expect(revoked.statusCode).toBe(200);
    expect((await list()).statusCode).toBe(401);
  });

  it('stays off while its heartbeat does not come back (a lost channel), and serves nothing cached', async () => {
    const cache = createCredentialCache({
      listen: test.dependencies.database.listen,
      // The heartbeat goes elsewhere: as if the LISTEN connection were gone.
      notify: async (payload) => void (await test.db.execute(sql`select pg_notify('identity_credentials_elsewhere', ${payload})`)),
      heartbeatMs: 50,
    });
    await cache.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      cache.set('at:x', { anything: true }, cache.generation);
      expect(cache.get('at:x')).toBeUndefined();
    } finally {
      await cache.stop();
    }
  });
});

describeNeeding('DATABASE_URL')('credential cache across two instances on one PostgreSQL (revocation stays immediate)', () => {
  let test: TestApp;
  let secondDatabase: Database<IdentityDatabaseSchema>;
  let second: Awaited<ReturnType<typeof buildApp>>;
  let secondCache: CredentialCache;

  beforeAll(async () => {
    test = await buildTestApp();
    secondDatabase = await openDatabase({ driver: 'postgres', url: test.dependencies.databaseUrl!, schemaName, migrationsFolder, schema: databaseSchema, skipMigrations: true });
    second = await buildApp({
      config: loadIdentityConfig({ LOG_LEVEL: 'silent', WORKER_IN_PROCESS: 'false', EVIDENCE_DIR: test.evidenceDir }),
      database: secondDatabase,
      redis: null,
      secretsKey: test.dependencies.secretsKey,
      rateLimitKeyPrefix: `test:${randomUUID()}:`,
      onCredentialCache: (cache) => (secondCache = cache),
    });
  });
  afterAll(async () => {
    await second.close();
    await secondDatabase.close();
    await test.close();
  });

  /** A partner whose token instance B has verified and remembered. */
  async function cachedOnSecond() {
    const partner = await partnerWithToken(test, `Tenant ${randomUUID()}`);
    const onSecond = () => second.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: partner.headers });
    await waitFor('the token cached on instance B', async () => (await onSecond()).statusCode === 200 && cachedToken(secondCache, partner.token) !== undefined);
    return { partner, onSecond };
  }

  it('a token revoked on A is refused by B on the next request', async () => {
    const { partner, onSecond } = await cachedOnSecond();
    const revoked = await test.app.inject({ method: 'POST', url: `${BASE}/oauth/revoke`, headers: certificateHeader(partner.cert), payload: { token: partner.token } });
    expect(revoked.statusCode).toBe(200);
    expect((await onSecond()).statusCode).toBe(401);
  });

  it('a client revoked on A, or a tenant disabled beside both (the CLI), is refused by B on the next request', async () => {
    const client = await cachedOnSecond();
    const deleted = await test.app.inject({ method: 'DELETE', url: `${BASE}/oauth/clients/${client.partner.id}`, headers: client.partner.portal });
    expect(deleted.statusCode).toBe(204);
    expect((await client.onSecond()).statusCode).toBe(403);

    const tenant = await cachedOnSecond();
    await test.db.transaction((tx) => setTenantStatus(tx, tenant.partner.tenantId, 'disabled', new Date()));
    await waitFor('B to refuse the disabled tenant', async () => (await tenant.onSecond()).statusCode === 403, 1000);
  });

  it('turns itself off when its LISTEN connection is killed, and comes back empty once it reconnects', async () => {
    const { partner } = await cachedOnSecond();
    const before = secondCache.generation;
    const killed = await secondDatabase.rows<{ pid: number }>(
      sql`select pid from pg_stat_activity where datname = current_database() and query ilike ${`%listen%${CREDENTIALS_CHANNEL}%`} and pid <> pg_backend_pid()`,
    );
    expect(killed.length).toBeGreaterThanOrEqual(1);
    await test.db.execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike ${`%listen%${CREDENTIALS_CHANNEL}%`} and pid <> pg_backend_pid()`);
    // postgres.js re-LISTENs at once; announcements in the gap may be lost, so the cache starts empty …
    await waitFor('the cache to be emptied on re-LISTEN', () => secondCache.generation > before, 10_000);
    expect(cachedToken(secondCache, partner.token)).toBeUndefined();
    // … and works again: the next request is looked up and remembered, and a revocation still reaches it.
    const onSecond = () => second.inject({ method: 'GET', url: `${BASE}/oauth/clients`, headers: partner.headers });
    await waitFor('the token cached again', async () => (await onSecond()).statusCode === 200 && cachedToken(secondCache, partner.token) !== undefined);
    await test.app.inject({ method: 'POST', url: `${BASE}/oauth/revoke`, headers: certificateHeader(partner.cert), payload: { token: partner.token } });
    expect((await onSecond()).statusCode).toBe(401);
  });
});
