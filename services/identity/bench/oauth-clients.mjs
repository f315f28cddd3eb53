// Authenticated GET /api/partner/v1/oauth/clients (bearer token of a certificate-bound client, the
// certificate's thumbprint sent as the trusted loopback proxy sends it, X-Client-Cert-Thumbprint;
// per-IP limiter active but raised so nothing is refused) against a bare Fastify process serving
// the same bytes. The service, the bare server and the load generator (autocannon, 50 connections,
// a warm-up of both, then both measured) are three separate processes.
// The service runs as an operator runs it (`node services/identity/dist/server.js`, configured
// through its environment, worker in process as by default); the tenant comes from the CLI, the
// login, the client (an openssl-made certificate) and its token over HTTP: identity-bench-setup.mjs.
//
// Usage, after `pnpm build`, from the repository root:
//   node services/identity/bench/oauth-clients.mjs [seconds]          (default 10; embedded PGlite)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
//     node services/identity/bench/oauth-clients.mjs [seconds]        (a fresh database per run)
// Prints one JSON line (bench/service-bench.mjs pathRow: path, mode, serviceRps, bareRps, ratio,
// p99Ms, then the figures of both sides). `pnpm bench` runs it in both modes.
import { killTracked } from '../../../bench/out-of-process.mjs';
import { benchSeconds, compareWithBare, pathRow } from '../../../bench/service-bench.mjs';
import { identityBench, log, PARTNER, serviceDir } from './identity-bench-setup.mjs';

const { seconds, warmupSeconds } = benchSeconds('node services/identity/bench/oauth-clients.mjs');
const bench = identityBench({ workDirPrefix: 'identity-bench-oauth-clients-', databasePrefix: 'bench_oauth_' });

async function main() {
  if (bench.databaseUrl) await bench.createDatabase();
  // The tenant first: on PGlite the CLI must have the database to itself.
  await bench.createTenant();
  const origin = await bench.startService({ env: { WORKER_IN_PROCESS: 'true' } });
  log(`service ready at ${origin} (pid ${bench.service.pid})`);
  const auth = await bench.authenticate(origin);
  const path = `${PARTNER}/oauth/clients`;
  const comparison = await compareWithBare({ service: bench.service, url: `${origin}${path}`, headers: auth, route: path, workDir: bench.workDir, packageDir: serviceDir, seconds, warmupSeconds });
  console.log(JSON.stringify({ ...pathRow(`identity GET ${path}`, comparison), ...comparison, serviceWarnings: bench.service.output.lines }));
}

// Setup (CLI, start, HTTP), 2 warm-ups, 2 measured runs, cleanup: nothing may hang past this.
await bench.run(main, {
  budgetSeconds: 300 + 2 * (warmupSeconds + 30) + 2 * (seconds + 30),
  // autocannon and the bare server first; the service gets its SIGTERM after them.
  beforeStop: async () => killTracked('SIGKILL', [bench.service]),
});
