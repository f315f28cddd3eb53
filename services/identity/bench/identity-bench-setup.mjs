// The identity-specific setup the out-of-process benches (checks.mjs, export.mjs, verifications.mjs,
// webhooks.mjs) share, so that each bench holds only what it measures and reports. Every such bench
// runs the service as an operator runs it and needs the same things around it:
//   - its command line (`benchArguments`: whole numbers in their ranges, `--name=value` flags, the
//     usage line on anything else, DATABASE_URL where required) and its summary's heading;
//   - a fresh PostgreSQL database per run on the server that DATABASE_URL names, and `query` to
//     read it (bench/service-bench.mjs: freshDatabase);
//   - the environment every identity process of the run shares (`environment(extra)`): DATA_DIR
//     (and, with `evidence`, EVIDENCE_DIR) in a temporary directory, a random SECRETS_KEY, the
//     database, REDIS_URL, plus the variables a bench adds for one process;
//   - the tenant from the CLI (`tenant:create`), the API (`dist/server.js`, worker apart unless
//     `env` says otherwise, per-IP limit raised so nothing is refused), then a portal login, a client
//     registered with an openssl-made certificate and its token (`authenticate`);
//   - HTTP helpers against the service (call, expectResponse, expectJson);
//   - standalone workers (`dist/worker.js`, with the bench's variables and node options) and, for
//     checks.mjs, the instant inference server and cases prepared for submit (created, session
//     exchanged, the samples uploaded);
//   - cleanup on success, failure, signals and a watchdog (`run`, with runBench).
// The service-independent parts are bench/out-of-process.mjs (processes, autocannon, the bare
// server) and bench/service-bench.mjs (database, service start, comparison, run).
import { Buffer } from 'node:buffer';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { collectLines, cpuSeconds, firstJsonLine, isWarning, killTracked, root, runCommand, spawnTracked, stopChild } from '../../../bench/out-of-process.mjs';
import { bareSide } from '../../../bench/rounds.mjs';
import { bodyFileOf, freshDatabase, headersFileOf, log, measurePath, probe, runBench, serviceSide, startService } from '../../../bench/service-bench.mjs';

export { log };

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const serviceDir = join(benchDir, '..');
export const PARTNER = '/api/partner/v1';
export const CAPTURE = '/api/capture/v1';
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench password 123';

// ---- the command line ----

/**
 * The bench's arguments: `numbers` are the positional whole numbers, each `[label, min, max,
 * fallback]`; `flags` the `--name[=value]` options it knows (a bare flag is 'true'), each `{usage}`
 * plus `range: [min, max]` (a whole number), `values` (one of them) or neither (any text), and
 * `fallback` when absent. On anything else it prints the usage line and exits 2; with `needsDatabase`
 * (why), also when DATABASE_URL is unset. Returns `{numbers: [...], flags: {name: value}}`.
 */
export function benchArguments(script, { numbers, flags = {}, needsDatabase }) {
  const args = process.argv.slice(2);
  const positional = args.filter((arg) => !arg.startsWith('--'));
  const given = Object.fromEntries(args.filter((arg) => arg.startsWith('--')).map((arg) => arg.slice(2).split('=')).map(([name, value = 'true']) => [name, value]));
  const whole = (value, [min, max]) => Number.isInteger(value) && value >= min && value <= max;
  const values = numbers.map(([, , , fallback], index) => Number(positional[index] ?? fallback));
  let ok = numbers.every(([, min, max], index) => whole(values[index], [min, max])) && Object.keys(given).every((name) => Object.hasOwn(flags, name));
  const options = {};
  for (const [name, spec] of Object.entries(flags)) {
    const raw = given[name];
    options[name] = raw === undefined ? (spec.fallback ?? null) : spec.range ? Number(raw) : raw;
    if (raw === undefined) continue;
    if (spec.range && !whole(options[name], spec.range)) ok = false;
    if (spec.values && !spec.values.includes(raw)) ok = false;
  }
  if (!ok) {
    const usage = [...numbers.map(([label, min, max, fallback]) => `[${label}, ${min}-${max}, default ${fallback}]`), ...Object.values(flags).map((spec) => `[${spec.usage}]`)];
    console.error(`usage: node services/identity/bench/${script} ${usage.join(' ')}`);
    process.exit(2);
  }
  if (needsDatabase && !process.env.DATABASE_URL) {
    console.error(`${script} needs DATABASE_URL (a PostgreSQL server): ${needsDatabase}`);
    process.exit(2);
  }
  return { numbers: values, flags: options };
}

/** The first line of a bench's markdown summary: `## identity <title> (CPUs, model, node, PostgreSQL, store)`. */
export function summaryHeading(title, environment) {
  return `## identity ${title} (${environment.cpus} CPUs${environment.cpuModel ? `, ${environment.cpuModel.trim()}` : ''}, node ${process.version}, PostgreSQL, ${environment.store})`;
}

// ---- HTTP against the service ----

/** One request; `json`, `form` or `body` (with `contentType`) as its body. Resolves with status, content type and text. */
export async function call(origin, method, path, { json, form, body, contentType, headers = {} } = {}) {
  const type = json !== undefined ? 'application/json' : form !== undefined ? 'application/x-www-form-urlencoded' : contentType;
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { ...(type ? { 'content-type': type } : {}), ...headers },
    body: json !== undefined ? JSON.stringify(json) : (form ?? body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/** call(), rejecting unless the answer has `expectedStatus`. */
export async function expectResponse(origin, method, path, expectedStatus, options) {
  const response = await call(origin, method, path, options);
  if (response.status !== expectedStatus) throw new Error(`${method} ${path}: ${response.status} (expected ${expectedStatus}) ${response.text.slice(0, 500)}`);
  return response;
}

/** expectResponse(), resolving with the parsed JSON body. */
export async function expectJson(origin, method, path, expectedStatus, options) {
  return JSON.parse((await expectResponse(origin, method, path, expectedStatus, options)).text);
}

/** One evidence upload as the capture API wants it: the evidenceType field first, then the file. */
function evidenceUpload(evidenceType, fileName, contentType) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="evidenceType"\r\n\r\n${evidenceType}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`),
    readFileSync(join(serviceDir, 'samples', fileName)),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { evidenceType, body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * One bench run: creates its temporary directory at once (`workDirPrefix`) and names its database
 * `<databasePrefix><timestamp>_<pid>` (created by createDatabase). With `evidence`, the processes
 * share an EVIDENCE_DIR and the samples are read for preparedCase. The processes started through
 * it are `service`, `inference` and `workers`; `run(main)` ends them all however the run ends.
 */
export function identityBench({ workDirPrefix, databasePrefix, evidence = false }) {
  const uploads = evidence
    ? [evidenceUpload('DocumentFront', 'document-front.jpg', 'image/jpeg'), evidenceUpload('Selfie', 'selfie.png', 'image/png'), evidenceUpload('LivenessVideo', 'liveness.mp4', 'video/mp4')]
    : [];
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const redisUrl = process.env.REDIS_URL || undefined;
  const workDir = mkdtempSync(join(tmpdir(), workDirPrefix));
  const evidenceDir = evidence ? join(workDir, 'evidence') : undefined;
  if (evidenceDir) mkdirSync(evidenceDir);
  const secretsKey = randomBytes(32).toString('hex');
  // PostgreSQL: a fresh database per run (on the server DATABASE_URL names), read with psql.
  const database = databaseUrl ? freshDatabase(databaseUrl, databasePrefix) : undefined;
  const bench = { databaseUrl, redisUrl, workDir, databaseName: database?.name, service: undefined, inference: undefined, workers: [], stopping: false };

  bench.createDatabase = () => database.create();

  /** Rows of a query on the bench database, each an array of text fields. */
  bench.query = (label, sql) => database.query(label, sql);

  /** The run's own database (undefined on PGlite), for a helper process that connects to it. */
  bench.runDatabaseUrl = database?.url;

  // ---- the identity processes ----

  /** What every identity process of the run shares, then `extra` (added or overriding). */
  function environment(extra = {}) {
    return {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      DATA_DIR: join(workDir, 'data'),
      ...(evidenceDir ? { EVIDENCE_DIR: evidenceDir } : {}),
      SECRETS_KEY: secretsKey,
      LOG_LEVEL: 'warn',
      ...(databaseUrl ? { DATABASE_URL: bench.runDatabaseUrl } : {}),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      ...extra,
    };
  }
  bench.environment = environment;

  /** `cli tenant:create` (live with `live`, else as the CLI defaults); on PGlite, before the service starts. */
  bench.createTenant = async ({ live = false } = {}) => {
    const cliEnv = { ...process.env, ...environment() };
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
    if (!tenant.tenantId || (live && tenant.sandbox !== false)) {
      throw new Error(`tenant:create printed ${JSON.stringify(cli.stdout)} (stderr ${JSON.stringify(cli.stderr.slice(-1000))})${live ? '; expected a live tenant' : ''}`);
    }
    log(`${live ? 'live tenant' : 'tenant'} ${tenant.tenantId}`);
    return tenant;
  };

  /**
   * The API with the run's environment plus `env` (worker apart unless it says WORKER_IN_PROCESS=true);
   * resolves with its origin once /health answers. It becomes `bench.service` (a bench that starts a
   * second one stops the first itself); its log lines: `service.output`.
   */
  bench.startService = async ({ env: extra = {} } = {}) => {
    const env = environment({ RATE_LIMIT_PER_MINUTE: '100000000', WORKER_IN_PROCESS: 'false', ...extra });
    const { origin } = await startService({ script: join(serviceDir, 'dist', 'server.js'), env, healthPath: '/health', onSpawn: (child) => (bench.service = child) });
    return origin;
  };

  /** Stops the running API (SIGTERM, then SIGKILL after 10 s). */
  bench.stopService = () => stopChild(bench.service, 10_000);

  /** A portal login, a client with an openssl-made certificate, a token: the partner API's headers. */
  bench.authenticate = async (origin) => {
    const login = await expectJson(origin, 'POST', `${PARTNER}/portal/login`, 200, { json: { email: EMAIL, password: PASSWORD } });
    const certFile = join(workDir, 'client.crt');
    await runCommand(
      'openssl req',
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=bench', '-days', '2', '-keyout', join(workDir, 'client.key'), '-out', certFile],
      { timeoutMs: 30_000 },
    );
    const certificatePem = readFileSync(certFile, 'utf8');
    const thumbprint = new X509Certificate(certificatePem).fingerprint256.replaceAll(':', '').toLowerCase();
    const client = await expectJson(origin, 'POST', `${PARTNER}/oauth/clients`, 201, { json: { clientName: 'Bench', certificatePem }, headers: { authorization: `Bearer ${login.sessionToken}` } });
    const token = await expectJson(origin, 'POST', `${PARTNER}/oauth/token`, 200, {
      form: `grant_type=client_credentials&client_id=${encodeURIComponent(client.clientId)}`,
      headers: { 'x-client-cert-thumbprint': thumbprint },
    });
    log(`client ${client.clientId}, token for ${token.expires_in} s`);
    return { authorization: `Bearer ${token.access_token}`, 'x-client-cert-thumbprint': thumbprint };
  };

  /** bench/instant-inference-server.mjs; resolves with its origin. */
  bench.startInference = async () => {
    const inference = spawnTracked(process.execPath, [join(benchDir, 'instant-inference-server.mjs')], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    bench.inference = inference;
    const { port } = await firstJsonLine(inference, 'the inference server', 15_000);
    inference.output = collectLines(inference);
    return `http://127.0.0.1:${port}`;
  };

  /**
   * A standalone worker (`node [nodeOptions] dist/worker.js`) with the run's environment plus `env`,
   * tracked in bench.workers (assertWorkersAlive, cleanup); `ready` resolves with the time it logged
   * "identity-worker started" (it claims jobs from then on), after `onReady(worker)`.
   */
  bench.startWorker = (index, { env: extra = {}, nodeOptions = [], onReady } = {}) => {
    // info, for the one "started" line; a worker logs nothing else at info while cases are approved
    // or webhooks delivered.
    const env = environment({ LOG_LEVEL: 'info', ...extra });
    const child = spawnTracked(process.execPath, [...nodeOptions, join(serviceDir, 'dist', 'worker.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const worker = { index, child, spawnedAt: Date.now(), readyAt: null, cpuAtReady: null, warnings: 0, warningTail: [], exited: null };
    let markReady;
    worker.ready = new Promise((resolve) => (markReady = resolve));
    worker.output = collectLines(child, {
      onLine(line) {
        if (worker.readyAt === null && line.includes('identity-worker started')) {
          worker.readyAt = Date.now();
          worker.cpuAtReady = cpuSeconds(child.pid);
          onReady?.(worker);
          markReady(worker.readyAt);
        } else if (isWarning(line)) {
          worker.warnings += 1;
          worker.warningTail.push(line);
          if (worker.warningTail.length > 10) worker.warningTail.shift();
        }
      },
    });
    child.once('exit', (code, signal) => (worker.exited = code ?? signal));
    child.once('error', (error) => (worker.exited = error.message));
    bench.workers.push(worker);
    return worker;
  };

  /** Stops one worker (SIGTERM, then SIGKILL after 15 s) and forgets it. */
  bench.stopWorker = async (worker) => {
    await stopChild(worker.child, 15_000);
    bench.workers.splice(bench.workers.indexOf(worker), 1);
  };

  bench.assertWorkersAlive = () => {
    for (const worker of bench.workers) {
      if (worker.exited !== null && !bench.stopping) throw new Error(`worker ${worker.index + 1} exited (${worker.exited}):\n${worker.output.tail.join('\n')}`);
    }
  };

  // ---- sides of the alternating rounds (bench/rounds.mjs) ----

  /** The API as a side of the rounds: started with `env` for its turn, stopped after it. */
  bench.serviceSide = (env = {}) =>
    serviceSide(async () => {
      const origin = await bench.startService({ env });
      return { child: bench.service, origin };
    });

  /**
   * The statement a route runs on PostgreSQL, as the reference's query file: `statement.builder`
   * names the prepared query the route executes (exported by the built service, e.g.
   * ['domain/cases/read-cases.js', 'caseDetailQuery']); its text comes from Drizzle itself, its
   * placeholders bound from `statement.values`. Resolves with the file's path.
   */
  bench.routeQueryFile = async ({ builder: [modulePath, exportName], values }) => {
    const requireService = createRequire(join(serviceDir, 'package.json'));
    const requireDb = createRequire(join(root, 'packages', 'db', 'package.json'));
    const { drizzle } = await import(pathToFileURL(requireService.resolve('drizzle-orm/postgres-js')).href);
    const { default: postgres } = await import(pathToFileURL(requireDb.resolve('postgres')).href);
    const schema = await import(pathToFileURL(join(serviceDir, 'dist', 'db', 'schema.js')).href);
    const build = (await import(pathToFileURL(join(serviceDir, 'dist', modulePath)).href))[exportName];
    // postgres.js connects on the first query only: building the statement's text never connects
    // (embedded, the text is the one PGlite runs too, and no server is named).
    const client = postgres(bench.runDatabaseUrl ?? 'postgres://bench@127.0.0.1:1/unused', { max: 1 });
    try {
      const { sql: text, params } = build(drizzle(client, { schema })).getQuery();
      const bound = params.map((param) => (param && typeof param === 'object' && 'name' in param ? values[param.name] : param));
      if (bound.some((value) => value === undefined)) throw new Error(`${exportName}: a placeholder has no value in ${JSON.stringify(values)}`);
      const file = join(workDir, `route-query-${exportName}.json`);
      writeFileSync(file, JSON.stringify({ text, params: bound }));
      log(`reference statement ${exportName} (${bound.length} parameters): ${text.slice(0, 120)}…`);
      return file;
    } finally {
      await client.end({ timeout: 1 });
    }
  };

  /**
   * GET `path` (authenticated with `auth`) in alternating rounds against the bare process serving the
   * bytes the running service answers, and against the bare process that first runs the route's own
   * statement (`statement`: {builder, values}, see routeQueryFile): on PostgreSQL through postgres.js
   * (`bare+query`), embedded on the service's PGlite directory (`bare+pglite`). With Redis, a third
   * reference also counts the request there and sends the service's own headers. The running service
   * gives the bytes and the statement, then is stopped: each side starts for its turn (with `env`).
   */
  bench.measureRead = async ({ label, origin, path, route, auth, statement, env = {}, seconds, warmupSeconds }) => {
    const url = `${origin}${path}`;
    const expected = await probe(url, { headers: auth });
    const queryFile = statement ? await bench.routeQueryFile(statement) : undefined;
    await bench.stopService();
    const bare = { route, bodyFile: bodyFileOf(workDir, expected.body), contentType: expected.contentType, packageDir: serviceDir };
    // Embedded, the query runs on the service's own PGlite directory, which is free while the service is stopped.
    const database = databaseUrl ? { pg: bench.runDatabaseUrl } : { pglite: join(workDir, 'data', 'identity', 'pglite') };
    const query = queryFile ? { ...database, 'pg-query': queryFile } : undefined;
    // The service's per-IP count in Redis (one fixed minute) and its own response headers, with the query: the contract's work.
    const contract = query && redisUrl ? { ...query, redis: redisUrl, 'redis-prefix': 'identity:rl:', 'redis-windows': 'minute:60000', headers: headersFileOf(workDir, expected) } : undefined;
    return measurePath(label, {
      service: bench.serviceSide(env),
      bare: bareSide({ name: 'bare', ...bare }),
      roundTrip: query ? bareSide({ name: databaseUrl ? 'bare+query' : 'bare+pglite', ...bare, options: query }) : undefined,
      contract: contract ? bareSide({ name: 'bare+query+redis+headers', ...bare, options: contract }) : undefined,
      request: (sideOrigin) => ({ url: `${sideOrigin}${path}`, headers: auth }),
      async check(sideOrigin, side) {
        const answer = await probe(`${sideOrigin}${path}`, { headers: auth });
        if (side.reference && !answer.body.equals(expected.body)) throw new Error(`${side.name} does not serve the service's body`);
      },
      seconds,
      warmupSeconds,
    });
  };

  // ---- cases prepared for submit (with `evidence`) ----

  /** A passport case created, its session exchanged and its three pieces of evidence uploaded: ready to submit. */
  bench.preparedCase = async (origin, auth, externalReference) => {
    const created = await expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { documentType: 'SyrianPassport', externalReference }, headers: auth });
    const session = await expectJson(origin, 'POST', `${CAPTURE}/session`, 200, { headers: { authorization: `Bearer ${created.sessionToken}` } });
    const capture = { authorization: `Bearer ${session.captureToken}` };
    for (const upload of uploads) {
      await expectJson(origin, 'POST', `${CAPTURE}/evidence`, 201, { body: upload.body, contentType: upload.contentType, headers: capture });
    }
    return { caseId: created.caseId, externalReference, capture, submitStartedAt: null, submittedAt: null, decidedAt: null };
  };

  /** Submits a prepared case; records when the request left and when its answer arrived. */
  bench.submit = async (origin, prepared) => {
    prepared.submitStartedAt = Date.now();
    const answer = await expectJson(origin, 'POST', `${CAPTURE}/submit`, 200, { headers: prepared.capture });
    prepared.submittedAt = Date.now();
    if (answer.status !== 'EvidenceUploaded') throw new Error(`submit of case ${prepared.caseId} answered status ${answer.status}`);
  };

  // ---- cleanup, on success, failure, signals and the watchdog ----

  let stopFirst;

  async function cleanup() {
    bench.stopping = true;
    await stopFirst?.();
    // Workers first: they hold the queue's rows and database connections.
    await Promise.all(bench.workers.map((worker) => stopChild(worker.child, 15_000)));
    if (bench.service) await stopChild(bench.service, 10_000);
    if (bench.inference) {
      bench.inference.stdin?.end();
      await stopChild(bench.inference, 5000);
    }
    killTracked('SIGKILL');
    await database?.drop();
    rmSync(workDir, { recursive: true, force: true });
  }

  /**
   * Runs `main` and cleans up: on its end, a failure, SIGINT/SIGTERM/SIGHUP, or after `budgetSeconds`.
   * `beforeStop` (optional) runs first in the cleanup, before the identity processes are stopped.
   * Exit code 1 on a failure or when `main` resolves with false.
   */
  bench.run = (main, { budgetSeconds, beforeStop }) => {
    stopFirst = beforeStop;
    return runBench(main, { budgetSeconds, cleanup });
  };

  return bench;
}
