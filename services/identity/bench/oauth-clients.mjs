// Authenticated GET /api/partner/v1/oauth/clients (bearer token + certificate thumbprint from
// the trusted loopback proxy, per-IP limiter active but raised so nothing is refused) against
// a bare Fastify route serving the same JSON, in the same run, on loopback.
// Run after `pnpm --filter @svc/identity build`: node bench/oauth-clients.mjs [seconds]
// DATABASE_URL (+ SECRETS_KEY) and REDIS_URL in the environment select PostgreSQL and Redis.
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServiceDependencies } from '@svc/service-kit';
import { compareWithBare } from '../../../bench/compare-with-bare.mjs';
import { buildApp } from '../dist/app.js';
import { loadIdentityConfig } from '../dist/config.js';
import { migrationsFolder, schemaName } from '../dist/db/migrations.js';
import { databaseSchema } from '../dist/db/schema.js';
import { createTenant } from '../dist/domain/tenants.js';

const seconds = Math.min(Number(process.argv[2] ?? 5), 30);
const base = '/api/partner/v1';

const dataDir = mkdtempSync(join(tmpdir(), 'identity-bench-'));
const config = loadIdentityConfig({
  LOG_LEVEL: 'silent',
  DATA_DIR: dataDir,
  DATABASE_URL: process.env.DATABASE_URL,
  SECRETS_KEY: process.env.DATABASE_URL ? (process.env.SECRETS_KEY ?? randomBytes(32).toString('hex')) : undefined,
  REDIS_URL: process.env.REDIS_URL,
  RATE_LIMIT_PER_MINUTE: '1000000000',
});
const dependencies = await createServiceDependencies({ config, schemaName, migrationsFolder, schema: databaseSchema });
const app = await buildApp({ ...dependencies, config, rateLimitKeyPrefix: `identity-bench:${process.pid}:` });
await app.listen({ host: '127.0.0.1', port: 0 });
const origin = `http://127.0.0.1:${app.server.address().port}${base}`;

// A tenant, a portal login, a client registered with an openssl-made certificate, a token.
const email = `bench-${process.pid}-${Date.now()}@example.com`;
const password = 'bench password 123';
await dependencies.database.db.transaction((tx) => createTenant(tx, { name: 'Bench', adminEmail: email, adminPassword: password }, new Date()));
const post = async (path, body, headers = {}) => {
  const response = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
};
const { sessionToken } = await post('/portal/login', { email, password });
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=bench', '-days', '2', '-keyout', join(dataDir, 'client.key'), '-out', join(dataDir, 'client.crt')], { stdio: 'ignore' });
const certificatePem = readFileSync(join(dataDir, 'client.crt'), 'utf8');
const thumbprint = createHash('sha256').update(new X509Certificate(certificatePem).raw).digest('hex');
const { clientId } = await post('/oauth/clients', { clientName: 'Bench', certificatePem }, { authorization: `Bearer ${sessionToken}` });
const tokenResponse = await fetch(`${origin}/oauth/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-client-cert-thumbprint': thumbprint },
  body: `grant_type=client_credentials&client_id=${clientId}`,
});
const { access_token: accessToken } = await tokenResponse.json();
const headers = { authorization: `Bearer ${accessToken}`, 'x-client-cert-thumbprint': thumbprint };

const result = await compareWithBare({ autocannon, Fastify, url: `${origin}/oauth/clients`, headers, seconds });
await app.close();
await dependencies.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify({ database: dependencies.database.driver, store: dependencies.redis ? 'redis' : 'memory', ...result }));
