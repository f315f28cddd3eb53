// Alternating rounds: the measurement every path bench makes. Each side (the service, the bare
// reference, the reference with the path's round trip) is a server started for its turn and
// stopped after it, so exactly one server process is alive while one is measured. Each round
// runs every side once (bare, service, bare+round trip; then again, three times by default),
// each warmed up before it is measured, with wrk (bench/load-generator.mjs) in its own process.
// A ratio is taken within a round (service / reference of the same round) and reported as the
// median of the rounds with their min-max, so a slow minute of the machine moves one round, not
// the figure.
// A run is only as good as its reference: a reference side that used less than 85% of a core, or
// any side whose load generator used 90% or more of its core (it saturated before the server),
// makes the run `invalid`, with the reason. A reference that makes a round trip shares the machine
// with the server it calls (PostgreSQL, Redis): it also counts when the whole machine was busy
// (90% of every core), as the machine is then the limit.
import { cpus } from 'node:os';
import { runWrk } from './load-generator.mjs';
import { cpuSeconds, load1m, machineBusySeconds, startBare, stopChild } from './out-of-process.mjs';

export const REFERENCE_MIN_CPU_PERCENT = 85;
export const LOAD_GENERATOR_MAX_CPU_PERCENT = 90;
export const MACHINE_SATURATED_PERCENT = 90;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round3 = (value) => Math.round(value * 1000) / 1000;

/** Side `runs` over `referenceRuns`, round by round (each round's rates measured the same hour): {median, min, max, perRound}. */
export function roundRatios(runs, referenceRuns) {
  const perRound = runs.map((run, index) => round3(run.rps / referenceRuns[index].rps));
  return { median: round3(median(perRound)), min: Math.min(...perRound), max: Math.max(...perRound), perRound };
}

/** A reference side: bench/bare-server.mjs answering `method` `route` with the bytes of `bodyFile`, after the round trip `options` names. */
export function bareSide({ name, method = 'GET', route, bodyFile, contentType, packageDir, options = {}, status }) {
  return {
    name,
    reference: true,
    roundTrip: Boolean(options.redis || options.pg || options.pglite || options.seal),
    async start() {
      const bare = await startBare({ method, route, bodyFile, contentType, packageDir, options: { ...options, ...(status ? { status } : {}) } });
      return {
        pid: bare.child.pid,
        origin: bare.origin,
        async stop() {
          bare.child.stdin.end();
          await stopChild(bare.child, 5000);
        },
      };
    },
  };
}

/**
 * Runs `rounds` rounds over `sides` ([{name, reference?, start() -> {pid, origin, stop()}}]);
 * `request(origin)` gives wrk's request ({url, method, headers, body | bodyFile, uniqueHeader}),
 * `check(origin)` (optional) is awaited before each warm-up (a probe that the side answers as
 * expected). Returns {rounds, connections, seconds, warmupSeconds, sides: {name: {runs, rps
 * (median), p50, p99 (median), serverCpuPercent, loadCpuPercent (max)}}, ratios: {"a/b": {median,
 * min, max, perRound}} for the first non-reference side against every reference, invalid: [why],
 * load1m: [before, after]}.
 */
export async function alternatingRounds({ sides, request, check, rounds = 3, seconds, warmupSeconds, connections = 50, log = () => undefined }) {
  const loadBefore = load1m();
  const runs = Object.fromEntries(sides.map((side) => [side.name, []]));
  const invalid = [];
  for (let round = 1; round <= rounds; round += 1) {
    for (const side of sides) {
      const server = await side.start();
      try {
        await check?.(server.origin, side);
        const wrkRequest = request(server.origin, side);
        log(`round ${round}/${rounds}: ${side.name}, ${warmupSeconds} s warm-up, ${seconds} s measured at ${connections} connections`);
        await runWrk({ ...wrkRequest, seconds: warmupSeconds, connections });
        const cpuBefore = cpuSeconds(server.pid);
        const machineBefore = machineBusySeconds();
        const started = Date.now();
        const figures = await runWrk({ ...wrkRequest, seconds, connections });
        const elapsed = (Date.now() - started) / 1000;
        const cpuAfter = cpuSeconds(server.pid);
        const machineAfter = machineBusySeconds();
        figures.serverCpuPercent = cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) / elapsed) * 100);
        figures.machineBusyPercent = machineBefore === null || machineAfter === null ? null : Math.round(((machineAfter - machineBefore) / elapsed / cpus().length) * 100);
        runs[side.name].push(figures);
        const underDriven = figures.serverCpuPercent !== null && figures.serverCpuPercent < REFERENCE_MIN_CPU_PERCENT;
        const machineSaturated = figures.machineBusyPercent !== null && figures.machineBusyPercent >= MACHINE_SATURATED_PERCENT;
        if (side.reference && underDriven && !(side.roundTrip && machineSaturated)) {
          invalid.push(
            `round ${round}: the reference ${side.name} used ${figures.serverCpuPercent}% of a core (under ${REFERENCE_MIN_CPU_PERCENT}%: under-driven; the machine was ${figures.machineBusyPercent}% busy)`,
          );
        }
        if (figures.loadCpuPercent !== null && figures.loadCpuPercent >= LOAD_GENERATOR_MAX_CPU_PERCENT) {
          invalid.push(`round ${round}: the load generator saturated first against ${side.name} (${figures.loadCpuPercent}% of its core)`);
        }
        if (figures.non2xx || figures.errors || figures.timeouts) {
          invalid.push(`round ${round}: ${side.name} failed requests (status >= 400: ${figures.non2xx}, socket errors: ${figures.errors}, timeouts: ${figures.timeouts})`);
        }
      } finally {
        await server.stop();
      }
    }
  }
  const summary = Object.fromEntries(
    sides.map((side) => {
      const sideRuns = runs[side.name];
      return [
        side.name,
        {
          rps: median(sideRuns.map((run) => run.rps)),
          p50: median(sideRuns.map((run) => run.p50)),
          p99: median(sideRuns.map((run) => run.p99)),
          serverCpuPercent: median(sideRuns.map((run) => run.serverCpuPercent ?? 0)),
          loadCpuPercent: Math.max(...sideRuns.map((run) => run.loadCpuPercent ?? 0)),
          runs: sideRuns,
        },
      ];
    }),
  );
  const measured = sides.find((side) => !side.reference);
  const ratios = {};
  if (measured) {
    for (const reference of sides.filter((side) => side.reference)) {
      ratios[`${measured.name}/${reference.name}`] = roundRatios(runs[measured.name], runs[reference.name]);
    }
  }
  return { rounds, connections, seconds, warmupSeconds, sides: summary, ratios, invalid, load1m: [loadBefore, load1m()] };
}
