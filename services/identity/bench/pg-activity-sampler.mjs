// A sampling profiler of PostgreSQL as the identity benches see it, in a process of its own: every
// <interval> ms (default 10) it reads pg_stat_activity over one connection and counts what each
// backend of the database is doing (its state, its wait event, the first words of its statement),
// plus the server's background processes (WAL writer, checkpointer, …) and their wait events.
// For services/identity/bench/webhooks.mjs --pg-sample: where a worker's time in the database goes
// (claims, endpoint reads, settles, commits waiting on the WAL flush), without touching src/ and
// without pg_stat_statements (not preloaded on a default server).
// Usage: node services/identity/bench/pg-activity-sampler.mjs <database URL> [interval ms]
// Prints {"ready":true} once connected. Stdin lines: `start` begins counting, `stop` prints one JSON
// line {samples, seconds, intervalMs, busyBackendsMean, byActivity: [{key, samples, share}…],
// background: […]} and forgets the counts. It exits when its stdin closes, and on SIGTERM/SIGINT.
// `postgres` (the driver) is resolved from packages/db, whose dependency it is.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../../../bench/out-of-process.mjs';

const [url, intervalArg = '10'] = process.argv.slice(2);
const intervalMs = Number(intervalArg);
if (!url || !Number.isFinite(intervalMs) || intervalMs < 1) {
  console.error('usage: node services/identity/bench/pg-activity-sampler.mjs <database URL> [interval ms]');
  process.exit(2);
}
const driverPath = createRequire(join(root, 'packages', 'db', 'package.json')).resolve('postgres');
const { default: postgres } = await import(pathToFileURL(driverPath).href);
const sql = postgres(url, { max: 1, onnotice: () => undefined });

/** The statement's first words, literals and whitespace folded: one key per kind of statement. */
function statementKind(query) {
  const lower = query.replaceAll(/\s+/g, ' ').trim().toLowerCase();
  const text = query.replaceAll(/\s+/g, ' ').replaceAll(/'[^']*'/g, "'…'").replaceAll(/\$\d+/g, '$n').trim();
  if (lower.startsWith('update') && lower.includes("set status = 'in_flight'")) return 'claim (update … set status = in_flight … for update skip locked)';
  if (lower.startsWith('update') && lower.includes('from (values') && lower.includes('last_error')) return 'settle (update … from (values …) set status, last_error, …)';
  if (lower.startsWith('update') && lower.includes('lease_expires_at =') && lower.includes('from (values')) return 'renew leases';
  return text.slice(0, 90);
}

let counting = false;
let counts;
let background;
let samples;
let busyTotal;
let startedAt;
function reset() {
  counts = new Map();
  background = new Map();
  samples = 0;
  busyTotal = 0;
  startedAt = Date.now();
}
reset();

const add = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

async function sample() {
  const rows = await sql`
    select backend_type, state, wait_event_type, wait_event, query, datname = current_database() as ours
    from pg_stat_activity
    where pid <> pg_backend_pid() and (datname = current_database() or datname is null)`;
  if (!counting) return;
  samples += 1;
  for (const row of rows) {
    if (!row.ours) {
      if (row.wait_event_type && row.wait_event_type !== 'Activity') add(background, `${row.backend_type}: ${row.wait_event_type}/${row.wait_event}`);
      else if (!row.wait_event_type) add(background, `${row.backend_type}: on CPU`);
      continue;
    }
    if (row.state === 'idle') continue;
    busyTotal += 1;
    const waiting = row.wait_event_type ? `${row.wait_event_type}/${row.wait_event}` : 'on CPU';
    const what = row.state === 'active' ? statementKind(row.query ?? '') : `${row.state} (last: ${statementKind(row.query ?? '')})`;
    add(counts, `${waiting} | ${what}`);
  }
}

function report() {
  const seconds = (Date.now() - startedAt) / 1000;
  const list = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([key, count]) => ({ key, samples: count, share: samples === 0 ? 0 : Math.round((count / samples) * 1000) / 1000 }));
  return { samples, seconds, intervalMs, busyBackendsMean: samples === 0 ? 0 : Math.round((busyTotal / samples) * 100) / 100, byActivity: list(counts), background: list(background) };
}

let timer;
let stopping = false;
async function loop() {
  if (stopping) return;
  const began = Date.now();
  try {
    await sample();
  } catch (error) {
    process.stderr.write(`pg-activity-sampler: ${error.message}\n`);
  }
  timer = setTimeout(loop, Math.max(0, intervalMs - (Date.now() - began)));
}

await sql`select 1`;
console.log(JSON.stringify({ ready: true }));
void loop();

let pending = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop();
  for (const line of lines) {
    if (line.trim() === 'start') {
      reset();
      counting = true;
    } else if (line.trim() === 'stop') {
      counting = false;
      console.log(JSON.stringify(report()));
      reset();
    }
  }
});

const stop = () => {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  sql.end({ timeout: 1 }).finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
