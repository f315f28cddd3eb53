import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createTestDependencies } from '@svc/service-kit/testing';
import { buildApp } from '../src/app.js';
import { loadIdentityConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { databaseSchema } from '../src/db/schema.js';
import type { ChecksProvider } from '../src/domain/checks/checks-provider.js';
import type { IdentityWorker } from '../src/workers/identity-worker.js';
import type { CredentialCache } from '../src/domain/common/credential-cache.js';
import { createTenant } from '../src/domain/tenants/tenants.js';
import { makeCertificate, type TestCertificate } from './certificates.js';

export const BASE = '/api/partner/v1';
export const PASSWORD = 'correct horse battery staple';

/** A clock tests move by hand (lockout expiry, token expiry). */
export function manualClock(start = new Date()) {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

/**
 * A fresh identity app on its own database and its own evidence directory; `close()` releases
 * everything. The background worker never starts by itself (tests drive it through `worker`).
 */
export async function buildTestApp(env: Record<string, string> = {}, options: { clock?: () => Date; lastUsedFlushMs?: number; checksProvider?: ChecksProvider; smtpCa?: string; databaseUrl?: string } = {}) {
  const dependencies = await createTestDependencies({ schemaName, migrationsFolder, schema: databaseSchema, ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}) });
  const evidenceDir = await mkdtemp(join(tmpdir(), 'identity-evidence-'));
  // No models unless a test asks for them (CHECKS_PROVIDER=local): live cases wait for a person.
  const config = loadIdentityConfig({ LOG_LEVEL: 'silent', EVIDENCE_DIR: evidenceDir, WORKER_IN_PROCESS: 'false', CHECKS_PROVIDER: 'none', ...env });
  let worker: IdentityWorker | undefined;
  let credentials: CredentialCache | undefined;
  const app = await buildApp({
    ...dependencies,
    config,
    rateLimitKeyPrefix: `test:${randomUUID()}:`,
    onWorker: (created) => (worker = created),
    onCredentialCache: (created) => (credentials = created),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.lastUsedFlushMs ? { lastUsedFlushMs: options.lastUsedFlushMs } : {}),
    ...(options.checksProvider ? { checksProvider: options.checksProvider } : {}),
    ...(options.smtpCa ? { smtpCa: options.smtpCa } : {}),
  });
  if (!worker || !credentials) throw new Error('buildApp did not hand over its worker and credential cache');
  const cache = credentials;
  return {
    app,
    dependencies,
    db: dependencies.database.db,
    worker,
    credentials: cache,
    /**
     * Runs a change made beside the API (as the CLI does) and waits until its NOTIFY has emptied
     * this instance's credential cache: what another process's change looks like to a running service.
     */
    async announced<Result>(change: () => Promise<Result>): Promise<Result> {
      const before = cache.generation;
      const result = await change();
      await expect.poll(() => cache.generation, { timeout: 5_000, interval: 5, message: 'the credential change was never announced' }).not.toBe(before);
      return result;
    },
    evidenceDir,
    async close() {
      await app.close();
      await dependencies.close();
      await rm(evidenceDir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

/** A tenant with a PartnerAdmin, logged in. */
export async function createLoggedInTenant(test: TestApp, name = 'Acme', options: { sandbox?: boolean } = {}) {
  const email = `admin-${randomUUID()}@example.com`;
  const { tenantId, adminUserId } = await test.db.transaction((tx) => createTenant(tx, { name, adminEmail: email, adminPassword: PASSWORD, sandbox: options.sandbox ?? false }, new Date()));
  const response = await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email, password: PASSWORD } });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  const sessionToken = response.json<{ sessionToken: string }>().sessionToken;
  return { tenantId, adminUserId, email, sessionToken, portal: { authorization: `Bearer ${sessionToken}` } };
}

export type LoggedInTenant = Awaited<ReturnType<typeof createLoggedInTenant>>;

export async function registerClient(test: TestApp, tenant: LoggedInTenant, certificate?: TestCertificate, allowedScopes?: string) {
  const cert = certificate ?? (await makeCertificate());
  const response = await test.app.inject({
    method: 'POST',
    url: `${BASE}/oauth/clients`,
    headers: tenant.portal,
    payload: { clientName: 'Backend', certificatePem: cert.certPem, ...(allowedScopes ? { allowedScopes } : {}) },
  });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  const body = response.json<{ clientId: string; client: { id: string } }>();
  return { cert, clientId: body.clientId, id: body.client.id };
}

/** The header a trusted proxy (loopback, app.inject's default address) forwards. */
export const certificateHeader = (cert: TestCertificate) => ({ 'x-client-cert-thumbprint': cert.thumbprint });

export async function requestToken(test: TestApp, clientId: string, cert: TestCertificate | null, extra: Record<string, string> = {}) {
  return test.app.inject({
    method: 'POST',
    url: `${BASE}/oauth/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cert ? certificateHeader(cert) : {}) },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, ...extra }).toString(),
  });
}

/** Register a client and get a token for it. */
export async function clientWithToken(test: TestApp, tenant: LoggedInTenant, allowedScopes?: string, scope?: string) {
  const client = await registerClient(test, tenant, undefined, allowedScopes);
  const response = await requestToken(test, client.clientId, client.cert, scope ? { scope } : {});
  if (response.statusCode !== 200) throw new Error(`token failed: ${response.statusCode} ${response.body}`);
  const token = response.json<{ access_token: string }>().access_token;
  return { ...client, token, headers: { authorization: `Bearer ${token}`, ...certificateHeader(client.cert) } };
}
