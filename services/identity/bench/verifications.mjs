// Verification cases under load, with the service, the load generator and a bare comparison
// server in three separate processes (so neither the service nor the bare route shares its
// event loop with autocannon):
//   A. POST /api/partner/v1/verifications {documentType: SyrianPassport}, no Idempotency-Key
//      (every request creates a case): requests/s, p50/p99 latency, non-2xx.
//   B. GET /api/partner/v1/verifications/{id} (bearer token + certificate thumbprint from the
//      trusted loopback proxy) against a bare Fastify process serving the same body bytes.
// The service runs as an operator runs it (`node services/identity/dist/server.js`, worker apart,
// per-IP limit raised so nothing is refused); the tenant comes from the CLI, everything else
// over HTTP. autocannon runs as its own process: -c 50, a warm-up run, then the measured run.
// The process management, autocannon and the bare server are shared: bench/out-of-process.mjs.
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 \
//     node services/identity/bench/verifications.mjs [seconds]     (default 10)
// With DATABASE_URL a fresh database bench_<timestamp> is created on that server (psql on PATH,
// connected to its `postgres` database) and dropped at the end; the database named in the URL is
// not touched. Without DATABASE_URL the service uses embedded PGlite in a temporary DATA_DIR (the
// CLI then runs before the service starts: PGlite is one process). REDIS_URL is optional.
// Prints one JSON line per scenario, then a short summary. Exit code 1 when setup fails.
import { Buffer } from 'node:buffer';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figures, freePort, killTracked, loadGenerator, root, runCommand, sleep, spawnTracked, startBare, stopChild } from '../../../bench/out-of-process.mjs';

const serviceDir = join(dirname(fileURLToPath(import.meta.url)), '..');

const seconds = Number(process.argv[2] ?? 10);
if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300) {
  console.error('usage: node services/identity/bench/verifications.mjs [seconds, 1-300, default 10]');
  process.exit(2);
}
const CONNECTIONS = 50;
const warmupSeconds = Math.min(seconds, 5);
const API = '/api/partner/v1';
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench password 123';
const CASE_BODY = JSON.stringify({ documentType: 'SyrianPassport' });

const databaseUrl = process.env.DATABASE_URL || undefined;
const redisUrl = process.env.REDIS_URL || undefined;
const workDir = mkdtempSync(join(tmpdir(), 'identity-bench-verifications-'));
const secretsKey = randomBytes(32).toString('hex');
const log = (message) => console.error(`[bench] ${message}`);
const { autocannon, measured } = loadGenerator({ packageDir: serviceDir, connections: CONNECTIONS });

// ---- PostgreSQL: a fresh database per run ----

const databaseName = `bench_${Date.now()}_${process.pid}`;
let databaseCreated = false;

function psql(sql) {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  return runCommand(`psql -c '${sql}'`, 'psql', ['-X', '-w', '-q', '-v', 'ON_ERROR_STOP=1', '-d', admin.toString(), '-c', sql], {
    env: { ...process.env, PGCONNECT_TIMEOUT: '10' },
    timeoutMs: 60_000,
  });
}

function benchDatabaseUrl() {
  const url = new URL(databaseUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}

// ---- the identity service as an operator runs it ----

let service;
let bare;
const serviceLog = { lines: 0, tail: [] };

function serviceEnvironment(port) {
  return {
    PATH: process.env.PATH,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: join(workDir, 'data'),
    SECRETS_KEY: secretsKey,
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'warn',
    WORKER_IN_PROCESS: 'false',
    ...(databaseUrl ? { DATABASE_URL: benchDatabaseUrl() } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
}

async function startService() {
  const port = await freePort();
  service = spawnTracked(process.execPath, [join(serviceDir, 'dist', 'server.js')], { cwd: root, env: serviceEnvironment(port), stdio: ['ignore', 'pipe', 'pipe'] });
  let pending = '';
  const collect = (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines.filter(Boolean)) {
      serviceLog.lines += 1;
      serviceLog.tail.push(line);
      if (serviceLog.tail.length > 30) serviceLog.tail.shift();
    }
  };
  service.stdout.setEncoding('utf8').on('data', collect);
  service.stderr.setEncoding('utf8').on('data', collect);
  let exited = null;
  service.once('exit', (code, signal) => (exited = code ?? signal));
  service.once('error', (error) => (exited = error.message));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`the service exited (${exited}) before answering /health:\n${serviceLog.tail.join('\n')}`);
    try {
      const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return origin;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`the service did not answer GET /health with 200 within 90 s:\n${serviceLog.tail.join('\n')}`);
}

// ---- HTTP against the service ----

async function call(origin, method, path, { json, form, headers = {} } = {}) {
  const response = await fetch(`${origin}${API}${path}`, {
    method,
    headers: { ...(json !== undefined ? { 'content-type': 'application/json' } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
    body: json !== undefined ? JSON.stringify(json) : form,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), text };
}

async function expectJson(origin, method, path, expectedStatus, options) {
  const response = await call(origin, method, path, options);
  if (response.status !== expectedStatus) throw new Error(`${method} ${path}: ${response.status} (expected ${expectedStatus}) ${response.text.slice(0, 500)}`);
  return { ...response, body: JSON.parse(response.text) };
}

// ---- cleanup, on success, failure, signals and the watchdog ----

let cleaning;
let interrupted = false;

function cleanup() {
  cleaning ??= (async () => {
    killTracked('SIGKILL', [service]);
    if (bare) {
      bare.stdin?.end();
      await stopChild(bare, 5000);
    }
    if (service) await stopChild(service, 10_000);
    if (databaseCreated) {
      try {
        await psql(`drop database if exists ${databaseName} with (force)`);
      } catch (error) {
        log(`could not drop database ${databaseName}: ${error.message}`);
      }
    }
    rmSync(workDir, { recursive: true, force: true });
  })();
  return cleaning;
}

async function fail(error) {
  if (!interrupted) console.error(`[bench] failed: ${error instanceof Error ? error.message : String(error)}`);
  await cleanup();
  process.exit(1);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
process.on('uncaughtException', (error) => void fail(error));
process.on('unhandledRejection', (error) => void fail(error));

// Setup (CLI, start, HTTP), 4 warm-ups, 3 measured runs, cleanup: nothing may hang past this.
const budgetSeconds = 300 + 4 * (warmupSeconds + 30) + 3 * (seconds + 30);
const watchdog = setTimeout(() => void fail(new Error(`the run took longer than ${budgetSeconds} s`)), budgetSeconds * 1000);

// ---- the run ----

async function main() {
  const mode = { database: databaseUrl ? 'postgres' : 'pglite', store: redisUrl ? 'redis' : 'memory' };
  log(`${mode.database} + ${mode.store}, ${seconds} s measured (${warmupSeconds} s warm-up) at ${CONNECTIONS} connections, ${cpus().length} CPUs, node ${process.version}`);

  if (databaseUrl) {
    await psql(`create database ${databaseName}`);
    databaseCreated = true;
    log(`created database ${databaseName}`);
  }

  // The tenant first: on PGlite the CLI must have the database to itself.
  const cliEnv = { ...process.env, ...serviceEnvironment(0), LOG_LEVEL: 'warn' };
  delete cliEnv.PORT;
  if (!databaseUrl) delete cliEnv.DATABASE_URL;
  const cli = await runCommand(
    'tenant:create',
    'pnpm',
    ['-s', '--filter', '@svc/identity', 'cli', 'tenant:create', '--name', 'Bench', '--admin-email', EMAIL, '--admin-password', PASSWORD],
    { env: cliEnv, timeoutMs: 120_000 },
  );
  let tenant;
  try {
    tenant = JSON.parse(cli.stdout.trim().split('\n').pop());
  } catch {
    tenant = {};
  }
  if (!tenant.tenantId) throw new Error(`tenant:create printed ${JSON.stringify(cli.stdout)} (stderr ${JSON.stringify(cli.stderr.slice(-1000))})`);
  log(`tenant ${tenant.tenantId}`);

  const origin = await startService();
  log(`service ready at ${origin} (pid ${service.pid})`);

  const { body: login } = await expectJson(origin, 'POST', '/portal/login', 200, { json: { email: EMAIL, password: PASSWORD } });
  const certFile = join(workDir, 'client.crt');
  await runCommand(
    'openssl req',
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=bench', '-days', '2', '-keyout', join(workDir, 'client.key'), '-out', certFile],
    { timeoutMs: 30_000 },
  );
  const certificatePem = readFileSync(certFile, 'utf8');
  const thumbprint = new X509Certificate(certificatePem).fingerprint256.replaceAll(':', '').toLowerCase();
  const { body: client } = await expectJson(origin, 'POST', '/oauth/clients', 201, {
    json: { clientName: 'Bench', certificatePem },
    headers: { authorization: `Bearer ${login.sessionToken}` },
  });
  const { body: token } = await expectJson(origin, 'POST', '/oauth/token', 200, {
    form: `grant_type=client_credentials&client_id=${encodeURIComponent(client.clientId)}`,
    headers: { 'x-client-cert-thumbprint': thumbprint },
  });
  const auth = { authorization: `Bearer ${token.access_token}`, 'x-client-cert-thumbprint': thumbprint };
  log(`client ${client.clientId}, token for ${token.expires_in} s`);

  // One request of each kind by hand first: a load test of 401s would measure nothing.
  const { body: probeCase } = await expectJson(origin, 'POST', '/verifications', 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
  await expectJson(origin, 'GET', `/verifications/${probeCase.caseId}`, 200, { headers: auth });

  const common = { connections: CONNECTIONS, seconds, warmupSeconds, ...mode };
  const results = [];

  // A. Case creation.
  const load1m = () => Math.round(loadavg()[0] * 100) / 100;
  let loadBefore = load1m();
  const createUrl = `${origin}${API}/verifications`;
  const createOptions = { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: CASE_BODY };
  log('A: warm-up POST /verifications');
  const createWarm = await autocannon(createUrl, { ...createOptions, duration: warmupSeconds });
  log('A: measuring POST /verifications');
  const create = await measured(service.pid, createUrl, { ...createOptions, duration: seconds });
  const { body: listed } = await expectJson(origin, 'GET', '/verifications?pageSize=1', 200, { headers: auth });
  const a = {
    scenario: 'POST /verifications',
    ...common,
    service: figures(create),
    casesListed: listed.totalCount,
    cases2xx: 1 + createWarm['2xx'] + create['2xx'],
    load1m: [loadBefore, load1m()],
  };
  console.log(JSON.stringify(a));
  results.push(a);

  // B. Reading one case, against a bare process serving the same bytes.
  loadBefore = load1m();
  const { body: created } = await expectJson(origin, 'POST', '/verifications', 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
  const detailPath = `/verifications/${created.caseId}`;
  const detail = await expectJson(origin, 'GET', detailPath, 200, { headers: auth });
  const bodyFile = join(workDir, 'case-detail.json');
  writeFileSync(bodyFile, detail.text);
  const bareServer = await startBare({ route: '/verifications/:id', bodyFile, contentType: detail.contentType ?? 'application/json', packageDir: serviceDir });
  bare = bareServer.child;
  const bareUrl = `${bareServer.origin}/verifications/${created.caseId}`;
  const bareCheck = await fetch(bareUrl, { signal: AbortSignal.timeout(5000) });
  const bareText = await bareCheck.text();
  if (bareCheck.status !== 200 || bareText !== detail.text || bareCheck.headers.get('content-type') !== detail.contentType) {
    throw new Error(`the bare server does not serve the service's body (${bareCheck.status}, ${bareCheck.headers.get('content-type')})`);
  }
  const serviceUrl = `${origin}${API}${detailPath}`;
  log('B: warm-up bare and service GET /verifications/{id}');
  await autocannon(bareUrl, { duration: warmupSeconds });
  await autocannon(serviceUrl, { headers: auth, duration: warmupSeconds });
  log('B: measuring bare');
  const bareRun = await measured(bare.pid, bareUrl, { duration: seconds });
  log('B: measuring service');
  const serviceRun = await measured(service.pid, serviceUrl, { headers: auth, duration: seconds });
  const b = {
    scenario: 'GET /verifications/{id}',
    ...common,
    bodyBytes: Buffer.byteLength(detail.text),
    service: figures(serviceRun),
    bare: figures(bareRun),
    ratio: Number((serviceRun.requests.average / bareRun.requests.average).toFixed(3)),
    load1m: [loadBefore, load1m()],
  };
  console.log(JSON.stringify(b));
  results.push(b);

  const short = (f) =>
    `${f.rps} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, non-2xx ${f.non2xx}${f.errors || f.timeouts ? `, errors ${f.errors}, timeouts ${f.timeouts}` : ''}${f.serverCpuPercent === null ? '' : `, server process CPU ${f.serverCpuPercent}%`}`;
  console.log(`identity verifications, ${mode.database} + ${mode.store}, ${CONNECTIONS} connections, ${seconds} s each after ${warmupSeconds} s warm-up (${cpus().length} CPUs, node ${process.version})`);
  console.log(`  A  POST /verifications       ${short(a.service)}`);
  console.log(`                               GET /verifications lists ${a.casesListed} cases; autocannon counted ${a.cases2xx} 201s (requests in flight when it stops still complete)`);
  console.log(`  B  GET /verifications/{id}   service ${short(b.service)}`);
  console.log(`                               bare    ${short(b.bare)}`);
  console.log(`                               ratio service/bare ${b.ratio} (body ${b.bodyBytes} bytes)`);
  console.log(`  1-minute load average ${a.load1m.join(' -> ')} during A, ${b.load1m.join(' -> ')} during B (${cpus().length} CPUs; well above that, other work shared the machine)`);
  if (serviceLog.lines > 0) {
    console.log(`  the service logged ${serviceLog.lines} line(s) at warn or above; the last:`);
    for (const line of serviceLog.tail.slice(-5)) console.log(`    ${line.slice(0, 300)}`);
  }
  const unexpected = results.some((r) => r.service.non2xx || r.service.errors || r.service.timeouts || r.bare?.non2xx || r.bare?.errors);
  if (unexpected) console.log('  note: some requests failed (see non2xx/errors/timeouts/statusCodes above)');
}

try {
  await main();
  await cleanup();
  clearTimeout(watchdog);
} catch (error) {
  await fail(error);
}
