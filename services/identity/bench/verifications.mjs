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
// The identity setup (database, tenant, service, login and token, HTTP, cleanup) is shared with
// the other identity benches: identity-bench-setup.mjs; the process management, autocannon, the
// bare server and the comparison with every out-of-process bench: bench/out-of-process.mjs and
// bench/service-bench.mjs. `pnpm bench` (bench/run-all.mjs) runs it embedded and on PostgreSQL + Redis.
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 \
//     node services/identity/bench/verifications.mjs [seconds]     (default 10)
// With DATABASE_URL a fresh database bench_<timestamp> is created on that server (psql on PATH,
// connected to the database named in the URL, which is otherwise untouched) and dropped at the end.
// Without DATABASE_URL the service uses embedded PGlite in a temporary DATA_DIR (the CLI then runs
// before the service starts: PGlite is one process). REDIS_URL is optional.
// Prints one JSON line per scenario (bench/service-bench.mjs pathRow first: path, mode, serviceRps,
// bareRps, ratio, p99Ms), then a short summary. Exit code 1 when setup fails.
import { cpus } from 'node:os';
import { figures, killTracked, load1m, loadGenerator } from '../../../bench/out-of-process.mjs';
import { benchSeconds, compareWithBare, CONNECTIONS, pathRow } from '../../../bench/service-bench.mjs';
import { expectJson, identityBench, log, PARTNER as API, serviceDir } from './identity-bench-setup.mjs';

const { seconds, warmupSeconds } = benchSeconds('node services/identity/bench/verifications.mjs');
const CASE_BODY = JSON.stringify({ documentType: 'SyrianPassport' });

const bench = identityBench({ workDirPrefix: 'identity-bench-verifications-', databasePrefix: 'bench_' });
const { databaseUrl, redisUrl, workDir } = bench;
const { autocannon, measured } = loadGenerator({ packageDir: serviceDir, connections: CONNECTIONS });

// Setup (CLI, start, HTTP), 4 warm-ups, 3 measured runs, cleanup: nothing may hang past this.
const budgetSeconds = 300 + 4 * (warmupSeconds + 30) + 3 * (seconds + 30);

// ---- the run ----

async function main() {
  const mode = { database: databaseUrl ? 'postgres' : 'pglite', store: redisUrl ? 'redis' : 'memory' };
  log(`${mode.database} + ${mode.store}, ${seconds} s measured (${warmupSeconds} s warm-up) at ${CONNECTIONS} connections, ${cpus().length} CPUs, node ${process.version}`);

  if (databaseUrl) await bench.createDatabase();
  // The tenant first: on PGlite the CLI must have the database to itself.
  await bench.createTenant();

  const origin = await bench.startService();
  const { service } = bench;
  log(`service ready at ${origin} (pid ${service.pid})`);
  const auth = await bench.authenticate(origin);

  // One request of each kind by hand first: a load test of 401s would measure nothing.
  const probeCase = await expectJson(origin, 'POST', `${API}/verifications`, 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
  await expectJson(origin, 'GET', `${API}/verifications/${probeCase.caseId}`, 200, { headers: auth });

  const common = { connections: CONNECTIONS, seconds, warmupSeconds, ...mode };
  const results = [];

  // A. Case creation.
  let loadBefore = load1m();
  const createUrl = `${origin}${API}/verifications`;
  const createOptions = { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: CASE_BODY };
  log('A: warm-up POST /verifications');
  const createWarm = await autocannon(createUrl, { ...createOptions, duration: warmupSeconds });
  log('A: measuring POST /verifications');
  const create = await measured(service.pid, createUrl, { ...createOptions, duration: seconds });
  const listed = await expectJson(origin, 'GET', `${API}/verifications?pageSize=1`, 200, { headers: auth });
  const createFigures = figures(create);
  const a = {
    ...pathRow(`identity POST ${API}/verifications`, { service: createFigures }),
    scenario: 'POST /verifications',
    ...common,
    service: createFigures,
    casesListed: listed.totalCount,
    cases2xx: 1 + createWarm['2xx'] + create['2xx'],
    load1m: [loadBefore, load1m()],
  };
  console.log(JSON.stringify(a));
  results.push(a);

  // B. Reading one case, against a bare process serving the same bytes.
  loadBefore = load1m();
  const created = await expectJson(origin, 'POST', `${API}/verifications`, 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
  const serviceUrl = `${origin}${API}/verifications/${created.caseId}`;
  const read = await compareWithBare({ service, url: serviceUrl, headers: auth, route: `${API}/verifications/:id`, workDir, packageDir: serviceDir, seconds, warmupSeconds });
  const b = {
    ...pathRow(`identity GET ${API}/verifications/{id}`, read),
    scenario: 'GET /verifications/{id}',
    ...common,
    bodyBytes: read.bodyBytes,
    service: read.service,
    bare: read.bare,
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
  if (service.output.lines > 0) {
    console.log(`  the service logged ${service.output.lines} line(s) at warn or above; the last:`);
    for (const line of service.output.tail.slice(-5)) console.log(`    ${line.slice(0, 300)}`);
  }
  const unexpected = results.some((r) => r.service.non2xx || r.service.errors || r.service.timeouts || r.bare?.non2xx || r.bare?.errors);
  if (unexpected) console.log('  note: some requests failed (see non2xx/errors/timeouts/statusCodes above)');
}

await bench.run(main, {
  budgetSeconds,
  // autocannon and the bare server first; the service gets its SIGTERM after them.
  async beforeStop() {
    killTracked('SIGKILL', [bench.service]);
  },
});
