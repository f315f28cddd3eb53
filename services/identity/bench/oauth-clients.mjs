// Authenticated GET /api/partner/v1/oauth/clients (bearer token of a certificate-bound client, the
// certificate's thumbprint sent as the trusted loopback proxy sends it, X-Client-Cert-Thumbprint;
// per-IP limiter active but raised so nothing is refused) in alternating rounds (bench/rounds.mjs)
// against the bare Fastify process serving the same bytes and, on PostgreSQL, the bare process
// that first runs the route's own statement through postgres.js: the physical limit of a path that
// must read its data. With Redis a third reference also counts the request in Redis as the
// service's limiter does and sends the service's own response headers (bare+query+redis+headers).
// One server process is alive at a time; wrk drives each.
// The service runs as an operator runs it (`node services/identity/dist/server.js`, configured
// through its environment, worker in process as by default); the tenant comes from the CLI, the
// login, the client (an openssl-made certificate) and its token over HTTP: identity-bench-setup.mjs.
//
// Usage, after `pnpm build`, from the repository root:
//   node services/identity/bench/oauth-clients.mjs [seconds]          (default 10; embedded PGlite)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
//     node services/identity/bench/oauth-clients.mjs [seconds]        (a fresh database per run)
// Prints one JSON line (bench/service-bench.mjs pathRow). `pnpm bench` runs it in both modes.
import { ensureWrk } from '../../../bench/load-generator.mjs';
import { killTracked } from '../../../bench/out-of-process.mjs';
import { benchSeconds } from '../../../bench/service-bench.mjs';
import { identityBench, log, PARTNER } from './identity-bench-setup.mjs';

const { seconds, warmupSeconds } = benchSeconds('node services/identity/bench/oauth-clients.mjs');
const bench = identityBench({ workDirPrefix: 'identity-bench-oauth-clients-', databasePrefix: 'bench_oauth_' });
const env = { WORKER_IN_PROCESS: 'true' };

async function main() {
  ensureWrk();
  if (bench.databaseUrl) await bench.createDatabase();
  // The tenant first: on PGlite the CLI must have the database to itself.
  const tenant = await bench.createTenant();
  const origin = await bench.startService({ env });
  log(`service ready at ${origin} (pid ${bench.service.pid})`);
  const auth = await bench.authenticate(origin);
  const path = `${PARTNER}/oauth/clients`;
  const row = await bench.measureRead({
    label: `identity GET ${path}`,
    origin,
    path,
    route: path,
    auth,
    statement: { builder: ['domain/access/oauth-clients.js', 'tenantClients'], values: { tenantId: tenant.tenantId } },
    env,
    seconds,
    warmupSeconds,
  });
  console.log(JSON.stringify({ ...row, serviceWarnings: bench.service?.output.lines }));
}

// Setup, then 3 rounds of up to 4 sides (start, warm-up, measure, stop), cleanup: nothing may hang past this.
await bench.run(main, {
  budgetSeconds: 300 + 12 * (warmupSeconds + seconds + 60),
  // wrk and the bare server first; the service gets its SIGTERM after them.
  beforeStop: async () => killTracked('SIGKILL', [bench.service]),
});
