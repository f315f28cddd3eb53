// The soak's faults, until `running()` turns false: every 20-40 s one random API instance or worker
// killed with SIGKILL and started again 2-5 s later; once, at 40 % of the run, Redis restarted;
// once, at 60 %, every PostgreSQL backend of one service terminated (pg_terminate_backend on the
// application_name its pools carry). Each fault is pushed to `faults` as {at, kind, target}.
import { sleep } from '../bench/out-of-process.mjs';

const between = (low, high) => low + Math.random() * (high - low);

export async function injectFaults({ slots, redisRestart, sql, running, startedAt, endAt, faults, log }) {
  const redisAt = startedAt + (endAt - startedAt) * 0.4;
  const postgresAt = startedAt + (endAt - startedAt) * 0.6;
  const victimService = Math.random() < 0.5 ? 'identity' : 'fx';
  let redisDone = false;
  let postgresDone = false;
  let nextKillAt = Date.now() + between(20_000, 40_000);
  while (running()) {
    const now = Date.now();
    if (!redisDone && now >= redisAt) {
      redisDone = true;
      faults.push({ at: now, kind: 'redis-restart', target: 'redis' });
      await redisRestart();
      log(`fault: Redis restarted in ${Date.now() - now} ms`);
    } else if (!postgresDone && now >= postgresAt) {
      postgresDone = true;
      const rows = await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name like ${`svc-${victimService}-%`}`;
      faults.push({ at: now, kind: 'pg-terminate', target: `${victimService} (${rows.length} backends)` });
      log(`fault: terminated ${rows.length} PostgreSQL backends of ${victimService}`);
    } else if (now >= nextKillAt) {
      const slot = slots[Math.floor(Math.random() * slots.length)];
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
