// The soak's faults, until `running()` turns false: every 20-40 s one API instance or worker
// killed with SIGKILL and started again 2-5 s later, every process in turn in a shuffled order (each
// killed once before any is killed twice); once, at 40 % of the run, Redis restarted (stopped for
// 30 s first in runs of 10 minutes or more);
// once, at 60 %, every PostgreSQL backend of one service terminated (pg_terminate_backend on the
// application_name its pools carry); once, at 75 %, PostgreSQL itself stopped for 10 s and
// started again (`pgRestart`, when the soak runs a server of its own). Each fault is pushed to
// `faults` as {at, kind, target}; a restart also gets `until`, when the server accepted connections again.
import { sleep } from '../bench/out-of-process.mjs';

/** Runs at least this long stop Redis for 30 s and judge RSS growth at 10 %; shorter ones (the CI soak) do neither. */
export const LONG_RUN_MS = 10 * 60_000;

const between = (low, high) => low + Math.random() * (high - low);

function shuffled(list) {
  const copy = [...list];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

export async function injectFaults({ slots, redisRestart, pgRestart, sql, running, startedAt, endAt, faults, log }) {
  const redisAt = startedAt + (endAt - startedAt) * 0.4;
  const postgresAt = startedAt + (endAt - startedAt) * 0.6;
  const restartAt = startedAt + (endAt - startedAt) * 0.75;
  let restartDone = !pgRestart;
  const victimService = Math.random() < 0.5 ? 'identity' : 'fx';
  let redisDone = false;
  let postgresDone = false;
  let nextKillAt = Date.now() + between(20_000, 40_000);
  const order = [];
  while (running()) {
    const now = Date.now();
    if (!redisDone && now >= redisAt) {
      redisDone = true;
      // Stopped for 30 s in runs of 10 minutes or more; the 3-minute CI run restarts it at once.
      const downMs = endAt - startedAt >= LONG_RUN_MS ? 30_000 : 0;
      const fault = { at: now, kind: downMs > 0 ? 'redis-stop' : 'redis-restart', target: downMs > 0 ? 'redis (stopped 30 s)' : 'redis' };
      faults.push(fault);
      await redisRestart(downMs);
      fault.until = Date.now();
      log(downMs > 0 ? `fault: Redis stopped and started again in ${fault.until - now} ms` : `fault: Redis restarted in ${fault.until - now} ms`);
    } else if (!postgresDone && now >= postgresAt) {
      postgresDone = true;
      const rows = await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name like ${`svc-${victimService}-%`}`;
      faults.push({ at: now, kind: 'pg-terminate', target: `${victimService} (${rows.length} backends)` });
      log(`fault: terminated ${rows.length} PostgreSQL backends of ${victimService}`);
    } else if (!restartDone && now >= restartAt) {
      restartDone = true;
      const fault = { at: now, kind: 'pg-restart', target: 'postgres (stopped 10 s)' };
      faults.push(fault);
      await pgRestart(10_000);
      fault.until = Date.now();
      log(`fault: PostgreSQL stopped and started again in ${fault.until - now} ms`);
    } else if (now >= nextKillAt) {
      if (order.length === 0) order.push(...shuffled(slots));
      const slot = order.shift();
      faults.push({ at: now, kind: 'kill', target: slot.name });
      await slot.kill();
      log(`fault: kill -9 ${slot.name}`);
      await sleep(between(2000, 5000));
      await slot.start();
      nextKillAt = Date.now() + between(20_000, 40_000);
    }
    await sleep(250);
  }
}
