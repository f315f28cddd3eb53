// The partner case list (GET /api/partner/v1/verifications) at a tenant with 1,000,000 cases, on
// PostgreSQL: the cases are written in one SQL statement (generate_series), not through the API,
// then the table is vacuumed and analysed as autovacuum would leave it. The service runs as an
// operator runs it (node dist/server.js, worker apart); autocannon runs as its own process at 20
// connections, a warm-up then the measured run, for:
//   A. page 1                      ?pageSize=20
//   B. a deep page                 ?pageSize=20&page=DEEP_PAGE (the service skips (page-1)*20 rows)
//   C. the same depth by cursor    ?pageSize=20&cursor=<nextCursor of page DEEP_PAGE-1>
//   D. a status filter, page 1     ?pageSize=20&status=PendingManualReview (a rare status)
// and prints, for each, the EXPLAIN (ANALYZE, BUFFERS) plan of the statements the service runs
// for it (the list, and the count: the bounded count, then the full count once a minute).
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node services/identity/bench/case-list.mjs [seconds] [--cases=N] [--deep-page=N]
// A fresh database bench_list_<timestamp> is created on that server (psql on PATH) and dropped at the end.
import { cpus } from 'node:os';
import { figures, load1m, loadGenerator } from '../../../bench/out-of-process.mjs';
import { benchArguments, expectJson, identityBench, log, PARTNER as API, serviceDir } from './identity-bench-setup.mjs';

const {
  numbers: [seconds],
  flags,
} = benchArguments('case-list.mjs', {
  numbers: [['seconds', 1, 300, 10]],
  flags: {
    cases: { usage: '--cases=N, 1000-10000000, default 1000000', range: [1000, 10_000_000], fallback: 1_000_000 },
    'deep-page': { usage: '--deep-page=N, 2-500000, default 10000', range: [2, 500_000], fallback: 10_000 },
  },
  needsDatabase: 'the bench measures the list on PostgreSQL at a million cases',
});
const CASES = flags.cases;
const DEEP_PAGE = Math.min(flags['deep-page'], Math.floor(CASES / 20));
const CONNECTIONS = 20;
const PAGE_SIZE = 20;
const warmupSeconds = Math.min(seconds, 3);

const bench = identityBench({ workDirPrefix: 'identity-bench-case-list-', databasePrefix: 'bench_list_' });
const { autocannon, measured } = loadGenerator({ packageDir: serviceDir, connections: CONNECTIONS });
const budgetSeconds = 900 + 4 * (warmupSeconds + seconds + 60);

// Statuses as a live tenant's years of cases spread them: mostly finished, a few open.
const STATUS_SHARES = [
  ['Approved', 60],
  ['Rejected', 12],
  ['Expired', 15],
  ['Cancelled', 5],
  ['Failed', 3],
  ['SessionIssued', 2],
  ['CaptureStarted', 1],
  ['EvidenceUploaded', 1],
  ['PendingManualReview', 1],
];

function bulkInsertSql(tenantId, from, to) {
  const bounds = [];
  let upTo = 0;
  for (const [status, share] of STATUS_SHARES) bounds.push(`when n % 100 < ${(upTo += share)} then '${status}'`);
  // One case every 30 s back from now, at millisecond precision as the service writes them.
  return `
    insert into identity.verification_cases
      (tenant_id, external_reference, document_type, status, idempotency_key, request_fingerprint, created_at, updated_at, completed_at)
    select '${tenantId}', 'order-' || n, case when n % 3 = 0 then 'SyrianNationalId' else 'SyrianPassport' end,
      case ${bounds.join(' ')} end, 'bulk-' || n, 'bulk',
      date_trunc('milliseconds', now() - n * interval '30 seconds'), date_trunc('milliseconds', now() - n * interval '30 seconds'), null
    from generate_series(${from}, ${to}) as n`;
}

// The statements the service sends for a list request (domain/cases/list-cases.ts), with the values inlined.
const LIST_COLUMNS = `id, external_reference, status, document_type, composite_risk_score, created_at, completed_at, ((extract(epoch from created_at) * 1000000)::bigint)::text`;
const listSql = (where, offset) =>
  `select ${LIST_COLUMNS} from identity.verification_cases where ${where} order by created_at desc nulls last, id desc nulls last limit ${PAGE_SIZE + 1} offset ${offset}`;
const boundedCountSql = (where) => `select count(*) from (select 1 from identity.verification_cases where ${where} limit 10001) as capped`;
const fullCountSql = (where) => `select count(*) from identity.verification_cases where ${where}`;

function positionOf(cursor) {
  const { t, i } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  return `(created_at, id) < ('epoch'::timestamptz + ${t}::bigint * interval '1 microsecond', '${i}'::uuid)`;
}

async function explain(label, sql) {
  const rows = await bench.query(`explain ${label}`, `explain (analyze, buffers, costs off, timing on) ${sql}`);
  return rows.map((row) => row.join('\t'));
}

async function main() {
  log(`postgres, ${CASES} cases, ${seconds} s measured (${warmupSeconds} s warm-up) at ${CONNECTIONS} connections, ${cpus().length} CPUs, node ${process.version}`);
  await bench.createDatabase();
  const tenant = await bench.createTenant();
  const origin = await bench.startService();
  const { service } = bench;
  const auth = await bench.authenticate(origin);

  let started = Date.now();
  // In chunks: each statement stays well inside psql's time limit on a busy machine.
  for (let from = 1; from <= CASES; from += 100_000) await bench.query('bulk insert', bulkInsertSql(tenant.tenantId, from, Math.min(CASES, from + 99_999)));
  log(`inserted ${CASES} cases in ${Date.now() - started} ms`);
  started = Date.now();
  await bench.query('vacuum', 'vacuum analyze identity.verification_cases');
  log(`vacuum analyze in ${Date.now() - started} ms`);

  const tenantWhere = `tenant_id = '${tenant.tenantId}'`;
  const first = await expectJson(origin, 'GET', `${API}/verifications?pageSize=${PAGE_SIZE}`, 200, { headers: auth });
  if (first.totalCount !== CASES) throw new Error(`the list counts ${first.totalCount} cases, expected ${CASES}`);
  const beforeDeep = await expectJson(origin, 'GET', `${API}/verifications?pageSize=${PAGE_SIZE}&page=${DEEP_PAGE - 1}`, 200, { headers: auth });
  const deep = await expectJson(origin, 'GET', `${API}/verifications?pageSize=${PAGE_SIZE}&page=${DEEP_PAGE}`, 200, { headers: auth });
  const byCursor = await expectJson(origin, 'GET', `${API}/verifications?pageSize=${PAGE_SIZE}&cursor=${encodeURIComponent(beforeDeep.nextCursor)}`, 200, { headers: auth });
  if (JSON.stringify(byCursor.items) !== JSON.stringify(deep.items) || byCursor.page !== DEEP_PAGE) throw new Error('the cursor page differs from the numbered page');

  const scenarios = [
    { name: 'A page 1', query: `pageSize=${PAGE_SIZE}`, list: listSql(tenantWhere, 0), where: tenantWhere },
    { name: `B page ${DEEP_PAGE}`, query: `pageSize=${PAGE_SIZE}&page=${DEEP_PAGE}`, list: listSql(tenantWhere, (DEEP_PAGE - 1) * PAGE_SIZE), where: tenantWhere },
    {
      name: `C cursor at page ${DEEP_PAGE}`,
      query: `pageSize=${PAGE_SIZE}&cursor=${encodeURIComponent(beforeDeep.nextCursor)}`,
      list: listSql(`${tenantWhere} and ${positionOf(beforeDeep.nextCursor)}`, 0),
      where: tenantWhere,
    },
    {
      name: 'D status=PendingManualReview, page 1',
      query: `pageSize=${PAGE_SIZE}&status=PendingManualReview`,
      list: listSql(`${tenantWhere} and status = 'PendingManualReview'`, 0),
      where: `${tenantWhere} and status = 'PendingManualReview'`,
    },
  ];

  const results = [];
  for (const scenario of scenarios) {
    const url = `${origin}${API}/verifications?${scenario.query}`;
    const loadBefore = load1m();
    log(`${scenario.name}: warm-up`);
    await autocannon(url, { headers: auth, duration: warmupSeconds });
    log(`${scenario.name}: measuring`);
    const result = figures(await measured(service.pid, url, { headers: auth, duration: seconds }));
    const plans = { list: await explain(`${scenario.name} list`, scenario.list), boundedCount: await explain(`${scenario.name} bounded count`, boundedCountSql(scenario.where)) };
    const row = { scenario: scenario.name, cases: CASES, connections: CONNECTIONS, seconds, ...result, load1m: [loadBefore, load1m()], plans };
    console.log(JSON.stringify(row));
    results.push(row);
  }
  const fullCount = await explain('full count', fullCountSql(tenantWhere));
  // For comparison: page 1 ordered by a bare DESC (NULLS FIRST), as the list did before; no index has that order.
  const bareDesc = await explain('page 1, bare DESC', listSql(tenantWhere, 0).replace('desc nulls last, id desc nulls last', 'desc, id desc'));

  const short = (f) => `${f.rps} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, non-2xx ${f.non2xx}, errors ${f.errors}${f.serverCpuPercent === null ? '' : `, service CPU ${f.serverCpuPercent}%`}`;
  console.log(`\nidentity case list, postgres, ${CASES} cases of one tenant, ${CONNECTIONS} connections, ${seconds} s each after ${warmupSeconds} s warm-up (${cpus().length} CPUs, node ${process.version})`);
  for (const row of results) console.log(`  ${row.scenario.padEnd(40)} ${short(row)}  (load ${row.load1m.join(' -> ')})`);
  for (const row of results) {
    console.log(`\n### ${row.scenario}: list\n${row.plans.list.join('\n')}`);
    console.log(`\n### ${row.scenario}: bounded count\n${row.plans.boundedCount.join('\n')}`);
  }
  console.log(`\n### full count (once a minute per filter above 10,000)\n${fullCount.join('\n')}`);
  console.log(`\n### for comparison, page 1 ordered by a bare DESC (the order no index has)\n${bareDesc.join('\n')}`);
  return !results.some((row) => row.non2xx || row.errors);
}

await bench.run(main, { budgetSeconds });
