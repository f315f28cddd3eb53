// The CSV export (GET /api/partner/v1/reports/export) of one tenant's cases, with the service and
// the client in separate processes: response time (to the last byte), bytes and rows, and the
// service process's memory during the export against its memory just before.
//   Seed: N cases (default 6000) of one tenant inserted by SQL into identity.verification_cases,
//   created over the last 20 days, every status, decided ones with a risk score, a decision
//   reason and completedAt; a tenth of the references and reasons need CSV quoting or formula
//   neutralising (commas, doubled quotes, line breaks, a leading = or -, non-ASCII), some are
//   null; plus 2000 cases of a second tenant in the same window (the export must leave them out).
//   N above the export's cap (5000) also checks X-Truncated. ANALYZE follows the inserts.
//   Probe (the first export, reported as the cold one): checked against the database: status,
//   headers (X-Total-Count = N, X-Truncated), the CSV parsed (RFC 4180) into exactly
//   min(N, 5000) records of 8 fields, in the order the spec gives (createdAt desc, id desc), every
//   cell equal to the database's value as the export must write it.
//   Measured: R more exports one after the other (default 5), each timed from the request to the
//   last byte (and to the first byte), its bytes and records counted. Memory: /proc/<pid>/status
//   of the service process, VmRSS before the request, then VmRSS sampled every 10 ms while it runs,
//   and VmHWM (the kernel's peak) reset just before the request by writing 5 to
//   /proc/<pid>/clear_refs; the peak is the higher of the two. Reported: median time, max
//   RSS delta (peak − before).
// The service runs as an operator runs it (`node services/identity/dist/server.js`, worker apart,
// per-IP limit raised); the tenant comes from the CLI, the token (scope reports included by
// default) from a portal login and an openssl-made client certificate; the arguments, the database,
// the processes and the cleanup too: identity-bench-setup.mjs, shared with the other identity
// benches; the process management is bench/out-of-process.mjs.
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
//     node services/identity/bench/export.mjs [cases] [runs]     (default 6000 and 5)
// A fresh database bench_export_<timestamp> is created on that server (psql on PATH, connected to its
// `postgres` database) and dropped at the end; the database named in the URL is not touched.
// REDIS_URL is optional. Linux only (/proc). Prints one JSON line per export and a markdown
// summary on stdout (progress on stderr). Exit code 1 when setup fails or the probe's check fails.
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus } from 'node:os';
import { load1m, percentiles, sleep } from '../../../bench/out-of-process.mjs';
import { benchArguments, identityBench, log, PARTNER, summaryHeading } from './identity-bench-setup.mjs';

const { numbers: [cases, runs] } = benchArguments('export.mjs', {
  numbers: [['cases', 1, 1_000_000, 6000], ['runs', 1, 100, 5]],
  needsDatabase: 'the cases are seeded with psql.',
});

/** The export's cap and columns (src/domain/reports/csv-export.ts). */
const EXPORT_ROW_LIMIT = 5000;
const EXPORT_COLUMNS = ['CaseId', 'Status', 'DocumentType', 'ExternalReference', 'CreatedAt', 'CompletedAt', 'CompositeRiskScore', 'DecisionReason'];
const OTHER_TENANT_CASES = 2000;
const RSS_SAMPLE_MS = 10;
const MiB = 1024 * 1024;

const bench = identityBench({ workDirPrefix: 'identity-bench-export-', databasePrefix: 'bench_export_' });
const { query } = bench;
const budgetSeconds = Math.ceil(300 + cases / 500 + (runs + 1) * 60);

// ---- seeding ----

/**
 * `count` cases of `tenantId` created over the 20 days before now, newest last. Statuses, scores
 * and reasons cycle; every tenth row of a kind needs quoting or neutralising in the CSV.
 */
function seedSql(tenantId, count, prefix) {
  return `
    insert into identity.verification_cases
      (tenant_id, external_reference, document_type, status, sandbox, composite_risk_score, decision_reason, idempotency_key, request_fingerprint, created_at, updated_at, completed_at)
    select '${tenantId}'::uuid,
      case i % 10
        when 0 then 'ACME, Inc. / order ' || i
        when 1 then 'ref "quoted" ' || i
        when 2 then E'two\\r\\nlines ' || i
        when 3 then '=HYPERLINK("http://example.com/' || i || '")'
        when 4 then null
        when 5 then '-' || i
        when 6 then 'Zürich ünïcødé café ' || i
        else '${prefix}-customer-' || lpad(i::text, 8, '0')
      end,
      case when i % 3 = 0 then 'SyrianNationalId' else 'SyrianPassport' end,
      s.status, false,
      case when s.status in ('Approved', 'Rejected', 'PendingManualReview') then round(((i * 37) % 1000) / 1000.0, 3)::double precision end,
      case s.status
        when 'Approved' then case when i % 20 = 7 then 'Manual review: approved, "name, as printed" matches' else 'All automated checks passed' end
        when 'Rejected' then 'Face match 0.41 below threshold, document "expired"'
        when 'PendingManualReview' then E'OCR confidence 0.62 below 0.85;\\nneeds a look'
        when 'Failed' then 'Checks provider unavailable after 3 attempts'
        when 'Cancelled' then null
        else null
      end,
      'bench-' || gen_random_uuid(), repeat('f', 64),
      s.created_at, s.created_at + interval '3 minutes',
      case when s.status in ('Approved', 'Rejected', 'Expired', 'Cancelled', 'Failed') then s.created_at + interval '3 minutes' end
    from (
      select i,
        (array['Approved', 'Approved', 'Approved', 'Approved', 'Rejected', 'Cancelled', 'Expired', 'SessionIssued', 'PendingManualReview', 'Failed', 'CaptureStarted'])[i % 11 + 1] as status,
        -- Microsecond timestamps, as the service writes them; one row in 97 shares its predecessor's (the keyset's tiebreak on id).
        now() - interval '20 days' + make_interval(secs => (case when i % 97 = 1 then i - 1 else i end) * (20 * 86400.0 / ${count})) as created_at
      from generate_series(1, ${count}) as i
    ) as s`;
}

// ---- the export, timed, with the service's memory ----

/** VmRSS and VmHWM of a process, in bytes. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0); false when not allowed. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** One GET: status, headers, the body (kept), time to first and last byte in ms. */
function timedGet(url, headers) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs = null;
    const chunks = [];
    const req = request(url, { headers, timeout: 120_000 }, (response) => {
      response.on('data', (chunk) => {
        firstByteMs ??= performance.now() - started;
        chunks.push(chunk);
      });
      response.once('end', () => resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks), firstByteMs, lastByteMs: performance.now() - started }));
      response.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer from ${url} within 120 s`)));
    req.once('error', reject);
    req.end();
  });
}

/** One export with the service's memory around it. */
async function measuredExport(url, headers, pid) {
  const peakReset = resetPeak(pid);
  const before = memoryOf(pid);
  let sampledPeak = before.rss;
  let sampleCount = 0;
  const sampler = setInterval(() => {
    try {
      sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss);
      sampleCount += 1;
    } catch {
      // the process went away; the request fails too
    }
  }, RSS_SAMPLE_MS);
  let response;
  try {
    response = await timedGet(url, headers);
  } finally {
    clearInterval(sampler);
  }
  const after = memoryOf(pid);
  sampledPeak = Math.max(sampledPeak, after.rss);
  const peak = peakReset ? Math.max(sampledPeak, after.hwm) : sampledPeak;
  return { response, memory: { before: before.rss, peak, sampledPeak, hwm: peakReset ? after.hwm : null, after: after.rss, samples: sampleCount, peakReset } };
}

// ---- checking the CSV ----

/** RFC 4180: records of fields; quoted fields may hold commas, CRLF and doubled quotes. */
function parseCsv(text) {
  const records = [];
  let record = [];
  let field = '';
  let index = 0;
  let quoted = false;
  while (index < text.length) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else field += char;
      index += 1;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 1;
    } else field += char;
    index += 1;
  }
  if (field !== '' || record.length > 0) throw new Error('the CSV does not end with CRLF');
  return records;
}

/** A text cell as the export must write it: a leading =, +, -, @, tab or CR gets a ' (OWASP). */
const neutralised = (text) => (text === null ? '' : /^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/** The probe's check: the CSV against the tenant's newest cases in the database, cell by cell. */
async function checkExport(response, tenantId, window) {
  const problems = [];
  if (response.status !== 200) return [`status ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`];
  if (!String(response.headers['content-type']).startsWith('text/csv')) problems.push(`content-type ${response.headers['content-type']}`);
  if (Number(response.headers['x-total-count']) !== cases) problems.push(`X-Total-Count ${response.headers['x-total-count']} (expected ${cases})`);
  if (response.headers['x-truncated'] !== String(cases > EXPORT_ROW_LIMIT)) problems.push(`X-Truncated ${response.headers['x-truncated']} (expected ${cases > EXPORT_ROW_LIMIT})`);
  const records = parseCsv(response.body.toString('utf8'));
  const [header, ...rows] = records;
  if (header?.join(',') !== EXPORT_COLUMNS.join(',')) problems.push(`header ${JSON.stringify(header)}`);
  const expectedRows = Math.min(cases, EXPORT_ROW_LIMIT);
  if (rows.length !== expectedRows) problems.push(`${rows.length} records (expected ${expectedRows})`);
  // The database's values as the export must write them; JSON per row so line breaks survive psql.
  const dbRows = (
    await query(
      'expected rows',
      `select json_build_array(id, status, document_type, external_reference,
              to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              composite_risk_score, decision_reason)
         from identity.verification_cases
        where tenant_id = '${tenantId}' and created_at between '${window.from}' and '${window.to}'
        order by created_at desc, id desc limit ${EXPORT_ROW_LIMIT}`,
    )
  ).map(([json]) => JSON.parse(json));
  let mismatches = 0;
  for (const [index, row] of rows.entries()) {
    const db = dbRows[index];
    if (row.length !== 8) {
      problems.push(`record ${index + 1} has ${row.length} fields`);
      break;
    }
    if (!db) break;
    const expected = [db[0], db[1], db[2], neutralised(db[3]), db[4], db[5] ?? '', db[6] === null ? '' : String(db[6]), neutralised(db[7])];
    const differing = expected.map((value, column) => (value === row[column] ? null : column)).filter((column) => column !== null);
    if (differing.length > 0) {
      mismatches += 1;
      if (mismatches <= 3) problems.push(`record ${index + 1}: ${differing.map((column) => `${EXPORT_COLUMNS[column]} ${JSON.stringify(row[column])} (expected ${JSON.stringify(expected[column])})`).join(', ')}`);
    }
  }
  if (mismatches > 3) problems.push(`… ${mismatches} records differ in all`);
  const quotedFields = (response.body.toString('utf8').match(/(^|,)"/gm) ?? []).length;
  return { problems, records: rows.length, quotedFields };
}

// ---- the run ----

const mib = (bytes) => Math.round((bytes / MiB) * 10) / 10;

function runFigures(label, { response, memory }) {
  const records = parseCsv(response.body.toString('utf8')).length - 1;
  return {
    run: label,
    status: response.status,
    timeToLastByteMs: Math.round(response.lastByteMs * 10) / 10,
    timeToFirstByteMs: response.firstByteMs === null ? null : Math.round(response.firstByteMs * 10) / 10,
    bytes: response.body.length,
    rows: records,
    rssBeforeMiB: mib(memory.before),
    rssPeakMiB: mib(memory.peak),
    rssDeltaMiB: mib(memory.peak - memory.before),
    rssAfterMiB: mib(memory.after),
    peakFrom: memory.peakReset ? (memory.hwm >= memory.sampledPeak ? 'VmHWM' : 'sampled VmRSS') : 'sampled VmRSS (VmHWM could not be reset)',
    rssSamples: memory.samples,
  };
}

async function main() {
  const environment = { cpus: cpus().length, cpuModel: cpus()[0]?.model?.trim() ?? null, node: process.version, database: 'postgres', store: bench.redisUrl ? 'redis' : 'memory' };
  log(`${cases} cases, ${runs} measured exports, ${environment.cpus} CPUs, node ${process.version}, load ${load1m()}`);
  await bench.createDatabase();
  const tenant = await bench.createTenant();
  const origin = await bench.startService();
  const { service } = bench;
  log(`service at ${origin} (pid ${service.pid})`);
  const auth = await bench.authenticate(origin);

  log(`seeding ${cases} cases for the tenant and ${OTHER_TENANT_CASES} for another`);
  const seedStarted = Date.now();
  await query('seed', seedSql(tenant.tenantId, cases, 'bench'));
  const [[otherTenant]] = await query('other tenant', `insert into identity.tenants (name) values ('Other bench tenant') returning id`);
  await query('seed other', seedSql(otherTenant, OTHER_TENANT_CASES, 'other'));
  await query('analyze', 'analyze identity.verification_cases');
  const [[oldest]] = await query('window', `select to_char((min(created_at) - interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') from identity.verification_cases where tenant_id = '${tenant.tenantId}'`);
  const window = { from: oldest, to: new Date(Date.now() + 60_000).toISOString() };
  log(`seeded in ${(Date.now() - seedStarted) / 1000} s; window ${window.from} .. ${window.to}`);
  const url = `${origin}${PARTNER}/reports/export?from=${encodeURIComponent(window.from)}&to=${encodeURIComponent(window.to)}`;

  // The probe: the first (cold) export, checked cell by cell.
  await sleep(500);
  const probe = await measuredExport(url, auth, service.pid);
  const check = await checkExport(probe.response, tenant.tenantId, window);
  const problems = Array.isArray(check) ? check : check.problems;
  const probeFigures = { ...runFigures('probe (first, cold)', probe), check: problems.length === 0 ? 'ok' : 'FAILED', quotedFields: check.quotedFields, problems };
  console.log(JSON.stringify(probeFigures));
  if (problems.length > 0) {
    console.log(`export check FAILED:\n  ${problems.join('\n  ')}`);
    return false;
  }

  const results = [];
  const loadBefore = load1m();
  for (let run = 1; run <= runs; run += 1) {
    await sleep(500);
    const figures = runFigures(run, await measuredExport(url, auth, service.pid));
    if (figures.status !== 200 || figures.rows !== Math.min(cases, EXPORT_ROW_LIMIT)) throw new Error(`export ${run}: status ${figures.status}, ${figures.rows} rows`);
    console.log(JSON.stringify(figures));
    results.push(figures);
  }
  const times = percentiles(results.map((result) => result.timeToLastByteMs));
  const firstBytes = percentiles(results.map((result) => result.timeToFirstByteMs));
  const maxDelta = Math.max(...results.map((result) => result.rssDeltaMiB));
  const summary = {
    summary: 'export',
    cases,
    otherTenantCases: OTHER_TENANT_CASES,
    runs,
    ...environment,
    rows: results[0].rows,
    bytes: results[0].bytes,
    timeToLastByteMs: times,
    timeToFirstByteMs: firstBytes,
    maxRssDeltaMiB: maxDelta,
    rssBeforeMiB: results.map((result) => result.rssBeforeMiB),
    rssPeakMiB: results.map((result) => result.rssPeakMiB),
    probe: probeFigures,
    load1m: [loadBefore, load1m()],
    serviceLogLines: service.output.lines,
  };
  console.log(JSON.stringify(summary));
  console.log(
    [
      summaryHeading('CSV export', environment),
      '',
      `GET ${PARTNER}/reports/export over ${cases} cases of the tenant (+ ${OTHER_TENANT_CASES} of another tenant in the same window): ${summary.rows} rows (cap ${EXPORT_ROW_LIMIT}, X-Truncated ${cases > EXPORT_ROW_LIMIT}), ${summary.bytes} bytes`,
      '',
      '| figure | value |',
      '|---|---|',
      `| time to last byte, median of ${runs} (min / max) | **${times.p50} ms** (${times.min} / ${times.max}) |`,
      `| time to first byte, median | ${firstBytes.p50} ms |`,
      `| service RSS before → peak, max delta over the ${runs} runs | **+${maxDelta} MiB** (before ${summary.rssBeforeMiB.join(', ')} MiB; peak ${summary.rssPeakMiB.join(', ')} MiB) |`,
      `| first (cold) export, checked cell by cell | ${probeFigures.timeToLastByteMs} ms, RSS ${probeFigures.rssBeforeMiB} → ${probeFigures.rssPeakMiB} MiB (+${probeFigures.rssDeltaMiB}), ${probeFigures.quotedFields} quoted fields, check ${probeFigures.check} |`,
      '',
      `- memory: /proc/${service.pid}/status VmRSS sampled every ${RSS_SAMPLE_MS} ms during each export and VmHWM reset before it (clear_refs 5): the peak is ${results[0].peakFrom === 'VmHWM' ? 'the kernel’s VmHWM' : results[0].peakFrom}`,
      `- 1-minute load average ${summary.load1m.join(' -> ')} (${environment.cpus} CPUs)`,
      ...(service.output.lines > 0 ? [`- the service logged ${service.output.lines} line(s) at warn or above; the last: ${service.output.tail.slice(-3).join(' | ').slice(0, 600)}`] : []),
    ].join('\n'),
  );
  return true;
}

await bench.run(main, { budgetSeconds });
