// Verification cases under load, each side in alternating rounds (bench/rounds.mjs) with wrk as
// the load generator in its own process and one server process alive at a time:
//   A. POST /api/partner/v1/verifications {documentType: SyrianPassport} with a fresh
//      Idempotency-Key per request (every request creates a case): cases/s, p50/p99 latency.
//      The goal is absolute (cases per second), so the service is its own only side.
//   B. GET /api/partner/v1/verifications/{id} (bearer token + certificate thumbprint from the
//      trusted loopback proxy) against the bare Fastify process serving the same bytes and, on
//      PostgreSQL, the bare process that first runs the route's own statement (one round trip).
// The service runs as an operator runs it (`node services/identity/dist/server.js`, worker apart,
// per-IP limit raised so nothing is refused); the tenant comes from the CLI, everything else
// over HTTP (identity-bench-setup.mjs). `pnpm bench` (bench/run-all.mjs) runs it embedded and on
// PostgreSQL + Redis.
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 \
//     node services/identity/bench/verifications.mjs [seconds]     (default 10)
// With DATABASE_URL a fresh database bench_<timestamp> is created on that server (psql on PATH,
// connected to the database named in the URL, which is otherwise untouched) and dropped at the end.
// Without DATABASE_URL the service uses embedded PGlite in a temporary DATA_DIR (the CLI then runs
// before the service starts: PGlite is one process). REDIS_URL is optional.
// Prints one JSON line per path (bench/service-bench.mjs pathRow). Exit code 1 when setup fails.
import { ensureWrk } from '../../../bench/load-generator.mjs';
import { killTracked } from '../../../bench/out-of-process.mjs';
import { benchSeconds, CONNECTIONS, measurePath, probe } from '../../../bench/service-bench.mjs';
import { expectJson, identityBench, log, PARTNER as API } from './identity-bench-setup.mjs';

const { seconds, warmupSeconds } = benchSeconds('node services/identity/bench/verifications.mjs');
const CASE_BODY = JSON.stringify({ documentType: 'SyrianPassport' });

const bench = identityBench({ workDirPrefix: 'identity-bench-verifications-', databasePrefix: 'bench_' });

async function main() {
  ensureWrk();
  if (bench.databaseUrl) await bench.createDatabase();
  // The tenant first: on PGlite the CLI must have the database to itself.
  const tenant = await bench.createTenant();
  let origin = await bench.startService();
  log(`service ready at ${origin} (pid ${bench.service.pid}), ${CONNECTIONS} connections`);
  const auth = await bench.authenticate(origin);

  // A. Case creation: the service alone, three rounds.
  const createHeaders = { ...auth, 'content-type': 'application/json' };
  await bench.stopService();
  const create = await measurePath(`identity POST ${API}/verifications`, {
    service: bench.serviceSide(),
    request: (sideOrigin) => ({ url: `${sideOrigin}${API}/verifications`, method: 'POST', headers: createHeaders, body: CASE_BODY, uniqueHeader: 'Idempotency-Key' }),
    check: (sideOrigin) => probe(`${sideOrigin}${API}/verifications`, { method: 'POST', headers: createHeaders, body: CASE_BODY, status: 201 }),
    seconds,
    warmupSeconds,
  });
  console.log(JSON.stringify(create));

  // B. Reading one case.
  origin = await bench.startService();
  const created = await expectJson(origin, 'POST', `${API}/verifications`, 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
  const read = await bench.measureRead({
    label: `identity GET ${API}/verifications/{id}`,
    origin,
    path: `${API}/verifications/${created.caseId}`,
    route: `${API}/verifications/:id`,
    auth,
    statement: { builder: ['domain/cases/read-cases.js', 'caseDetailQuery'], values: { caseId: created.caseId, tenantId: tenant.tenantId } },
    seconds,
    warmupSeconds,
  });
  console.log(JSON.stringify(read));
}

// Setup, then rounds of 1 and up to 4 sides (start, warm-up, measure, stop), cleanup: nothing may hang past this.
await bench.run(main, {
  budgetSeconds: 300 + 15 * (warmupSeconds + seconds + 60),
  // wrk and the bare server first; the service gets its SIGTERM after them.
  beforeStop: async () => killTracked('SIGKILL', [bench.service]),
});
