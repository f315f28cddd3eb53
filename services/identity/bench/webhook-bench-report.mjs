// The figures and the report of services/identity/bench/webhooks.mjs, apart from the phases
// themselves: rounding helpers, the CPU and run-queue counters read from /proc (this machine's
// processes: the worker, the API, the receiver and every PostgreSQL server process) at the start
// and the end of the drain and the CPU breakdown made of them, the stalls between the receiver's
// arrivals, and the markdown summary printed at the end. Not a bench of its own.
import { readdirSync, readFileSync } from 'node:fs';
import { cpuSeconds, machineBusySeconds, percentiles } from '../../../bench/out-of-process.mjs';
import { summaryHeading } from './identity-bench-setup.mjs';

export const round = (value, digits = 1) => (value === null || value === undefined || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));
export const perSecond = (count, ms) => (ms > 0 ? Math.round((count / (ms / 1000)) * 10) / 10 : null);
const cpuDelta = (before, after) => (before === null || before === undefined || after === null || after === undefined ? null : round(after - before, 2));

/** The 90th percentile (nearest rank) of `values`, to one decimal; null when empty. */
export function p90(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : round(sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)]);
}

// ---- counters from /proc ----

/**
 * Seconds a process (its main thread; with `threads`, all its threads) spent runnable but waiting
 * for a CPU so far: the second field of /proc/<pid>[/task/<tid>]/schedstat. Null where unreadable.
 */
function runQueueWaitSeconds(pid, { threads = false } = {}) {
  try {
    const ids = threads ? readdirSync(`/proc/${pid}/task`) : [null];
    let total = 0;
    for (const tid of ids) total += Number(readFileSync(tid === null ? `/proc/${pid}/schedstat` : `/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
    return total;
  } catch {
    return null;
  }
}

/**
 * CPU seconds (user + system) and run-queue wait of every PostgreSQL server process alive now, from
 * /proc (the server runs on this machine): the database's share when taken before and after a phase.
 * Backends that exit in between are not counted (the worker's connections live throughout). Nulls
 * when /proc cannot be read.
 */
function postgresUsage() {
  try {
    let cpu = 0;
    let wait = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu += (Number(fields[11]) + Number(fields[12])) / 100;
      wait += runQueueWaitSeconds(entry) ?? 0;
    }
    return { cpu, wait };
  } catch {
    return { cpu: null, wait: null };
  }
}

/** The counters the drain's CPU figures compare, now: CPU seconds of each party, and run-queue waits. */
export function drainCounters({ api, receiver, worker }) {
  const pg = postgresUsage();
  return {
    at: Date.now(),
    machine: machineBusySeconds(),
    api: cpuSeconds(api.pid),
    receiver: cpuSeconds(receiver.pid),
    worker: cpuSeconds(worker.pid),
    postgres: pg.cpu,
    waits: { workerMain: runQueueWaitSeconds(worker.pid), worker: runQueueWaitSeconds(worker.pid, { threads: true }), receiver: runQueueWaitSeconds(receiver.pid), postgres: pg.wait },
  };
}

/**
 * CPU over the drain, from the worker's ready line (`readyAt`, its own counter `cpuAtReady`) to when
 * the bench saw the last row settled (`end`); null without the start's counters.
 */
export function drainCpu(start, end, { readyAt, cpuAtReady }) {
  if (!start) return null;
  const machine = cpuDelta(start.machine, end.machine);
  const workerSeconds = cpuDelta(cpuAtReady, end.worker);
  const api = cpuDelta(start.api, end.api);
  const receiverSeconds = cpuDelta(start.receiver, end.receiver);
  const postgresSeconds = cpuDelta(start.postgres, end.postgres);
  const known = [workerSeconds, api, receiverSeconds, postgresSeconds];
  // The window here runs to when the bench saw the last row settled, a little past lastCompleted.
  const observedSeconds = (end.at - readyAt) / 1000;
  return {
    observedSeconds: round(observedSeconds, 2),
    machineSeconds: machine,
    machinePercent: machine === null ? null : Math.round((machine / observedSeconds) * 100),
    workerSeconds,
    workerPercent: workerSeconds === null ? null : Math.round((workerSeconds / observedSeconds) * 100),
    receiverSeconds,
    postgresSeconds,
    postgresPercent: postgresSeconds === null ? null : Math.round((postgresSeconds / observedSeconds) * 100),
    apiSeconds: api,
    // Runnable but waiting for a CPU (the machine was busy): the worker's main thread, all its threads, the receiver, PostgreSQL.
    runQueueWaitSeconds: Object.fromEntries(Object.keys(start.waits).map((name) => [name, cpuDelta(start.waits[name], end.waits[name])])),
    restSeconds: machine === null || known.includes(null) ? null : round(machine - known.reduce((sum, value) => sum + value, 0), 2),
  };
}

/**
 * Stalls: stretches of at least `thresholdMs` with no arrival at the receiver, i.e. no POST
 * completing (the worker was claiming, reading endpoints or settling with nothing in flight, or
 * waiting for a CPU).
 */
export function stallsOf(arrivals, thresholdMs) {
  const sorted = [...arrivals].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((at, index) => at - sorted[index]).filter((gap) => gap >= thresholdMs);
  return { thresholdMs, count: gaps.length, totalMs: round(gaps.reduce((sum, gap) => sum + gap, 0)), ...percentiles(gaps, 1) };
}

// ---- the markdown summary ----

/** The summary printed after the phases' JSON lines: the headline table, then the details. */
export function printSummary({ environment, queueVia, throughput, standalone, inProcess, ok, workerWarnings, apiWarnings, pgActivity, cpuProfDir }) {
  const { deliveries, receiverStalls: stalls, cpu } = throughput;
  const lat = (run) => `${run.changeToDeliveryMs.p50} / ${run.changeToDeliveryMs.p90} / ${run.changeToDeliveryMs.p99} ms (max ${run.changeToDeliveryMs.max})`;
  const summary = [
    summaryHeading('webhooks', environment),
    '',
    `| figure | value | target |`,
    `|---|---|---|`,
    `| throughput, 1 standalone worker (WEBHOOK_CONCURRENCY ${throughput.webhookConcurrency}), ${deliveries} queued (${queueVia}), ready → last succeeded | **${throughput.deliveriesPerSecond} deliveries/s** (${throughput.drainSeconds} s) | ≥ 2000/s ${throughput.deliveriesPerSecond >= 2000 ? '✓' : '✗'} |`,
    `| same, counting the worker's start-up (${throughput.workerReadyAfterMs} ms) | ${throughput.deliveriesPerSecondFromSpawn} deliveries/s | |`,
    `| receiver first → last arrival | ${throughput.receiverPerSecond} deliveries/s | |`,
    `| change → delivery, API + standalone worker, p50 / p90 / p99 | ${lat(standalone)} | p50 < 100 ms ${standalone.changeToDeliveryMs.p50 < 100 ? '✓' : '✗'} |`,
    `| change → delivery, worker in the API process, p50 / p90 / p99 | ${lat(inProcess)} | p50 < 100 ms ${inProcess.changeToDeliveryMs.p50 < 100 ? '✓' : '✗'} |`,
    '',
    `- stalls (≥ ${stalls.thresholdMs} ms with no arrival at the receiver): ${stalls.count}, ${stalls.totalMs} ms in all = ${Math.round(stalls.shareOfFirstToLast * 100)}% of first → last arrival (median ${stalls.p50} ms, max ${stalls.max} ms)`,
    `- throughput check: ${throughput.receiver.verified} of ${deliveries} signatures verified, ${throughput.receiver.failures} failures, ${throughput.receiver.duplicates} duplicates; queue ${JSON.stringify(throughput.queue)}; bodies ${throughput.payloadBytes.avg} bytes on average (${throughput.payloadBytes.min}–${throughput.payloadBytes.max})`,
    cpu
      ? `- CPU over the drain (${cpu.observedSeconds} s): machine ${cpu.machinePercent}% of ${environment.cpus * 100}%; worker ${cpu.workerSeconds} s (${cpu.workerPercent}% of a core), receiver ${cpu.receiverSeconds} s, PostgreSQL ${cpu.postgresSeconds} s (${cpu.postgresPercent}% of a core), API ${cpu.apiSeconds} s, the rest (the bench's polling, anything else on the machine) ${cpu.restSeconds} s; waited for a CPU (runnable, not running): worker main thread ${cpu.runQueueWaitSeconds.workerMain} s, PostgreSQL ${cpu.runQueueWaitSeconds.postgres} s, receiver ${cpu.runQueueWaitSeconds.receiver} s; ~${throughput.postgres.transactions} PostgreSQL transactions by the worker (${throughput.postgres.transactionsPerDelivery} per delivery), ${throughput.postgres.settles} settle statements (${throughput.postgres.rowsPerSettle} rows each on average)`
      : '- CPU over the drain: not available',
    `- latency runs: ${standalone.changes} changes one every ${standalone.intervalMs} ms (${standalone.changesSeconds} s and ${inProcess.changesSeconds} s); API answer → arrival p50 ${standalone.answerToDeliveryMs.p50} ms standalone, ${inProcess.answerToDeliveryMs.p50} ms in process (negative: the webhook arrived before the API's answer); API request p50 ${standalone.apiRequestMs.p50} / ${inProcess.apiRequestMs.p50} ms`,
    `- checks: ${ok ? 'ok' : 'FAILED'}${[...throughput.problems, ...standalone.problems, ...inProcess.problems].map((problem) => `; ${problem}`).join('')}`,
    `- 1-minute load average ${throughput.load1m.join(' -> ')} over the drain (${environment.cpus} CPUs; the bench's own processes count in it)`,
  ];
  if (workerWarnings.count > 0) summary.push(`- the worker logged ${workerWarnings.count} line(s) at warn or above; the last: ${workerWarnings.tail.map((line) => line.slice(0, 300)).join(' | ')}`);
  for (const api of apiWarnings) if (api.count > 0) summary.push(`- the API (${api.mode}) logged ${api.count} line(s) at warn or above; the last: ${api.tail.map((line) => line.slice(0, 300)).join(' | ')}`);
  if (pgActivity) {
    summary.push(`- PostgreSQL activity over the drain (${pgActivity.samples} samples every ${pgActivity.intervalMs} ms; busy backends ${pgActivity.busyBackendsMean} on average; share = fraction of samples):`);
    for (const entry of pgActivity.byActivity.slice(0, 8)) summary.push(`  - ${entry.share} ${entry.key}`);
    for (const entry of pgActivity.background.slice(0, 4)) summary.push(`  - background ${entry.share} ${entry.key}`);
  }
  if (cpuProfDir) summary.push(`- the worker's CPU profile is in ${cpuProfDir}`);
  console.log(summary.join('\n'));
}
