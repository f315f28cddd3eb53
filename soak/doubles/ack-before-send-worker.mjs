// A deliberately broken delivery worker, for the soak's self-check only (`pnpm soak --self-check`):
// it claims due identity webhook deliveries and marks them succeeded BEFORE sending, then "dies"
// before the send, as a worker that acknowledges first would when killed at the wrong moment. It is
// a test double living in the harness, never part of a service: nothing in production can turn it
// on. A soak that still passes with it running has an invariant that cannot fail.
// Usage: node soak/doubles/ack-before-send-worker.mjs <database url>
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const requireFromDb = createRequire(new URL('../../packages/db/package.json', import.meta.url));
const { default: postgres } = await import(pathToFileURL(requireFromDb.resolve('postgres')).href);
const sql = postgres(process.argv[2], { max: 1, onnotice: () => undefined });
let acknowledged = 0;
let stopping = false;
process.on('SIGTERM', () => (stopping = true));
console.log(JSON.stringify({ started: true }));

while (!stopping) {
  try {
    const rows = await sql`
      update identity.webhook_deliveries set status = 'succeeded', completed_at = now(), attempt_count = attempt_count + 1, last_status_code = 204
      where id in (select id from identity.webhook_deliveries where status = 'pending' and next_attempt_at <= now()
                   order by next_attempt_at limit 5 for update skip locked)
      returning id`;
    acknowledged += rows.length;
    if (rows.length > 0) console.log(JSON.stringify({ acknowledgedWithoutSending: acknowledged }));
  } catch {
    // a terminated backend or a restart of the database: try again
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await sql.end({ timeout: 1 });
