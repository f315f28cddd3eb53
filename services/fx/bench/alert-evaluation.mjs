// Rate-alert evaluation with 100,000 active alerts on one currency and source, and delivery
// throughput of the worker to a local receiver. Run after `pnpm --filter @svc/fx build`:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/alert-evaluation.mjs [alerts] [updates]
// Without DATABASE_URL it runs on embedded PGlite (one process; not what production measures).
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createTestDatabase } from '@svc/db/testing';
import { createSecretBox } from '@svc/service-kit';
import { sql } from 'drizzle-orm';
import { migrationsFolder, schemaName } from '../dist/db/migrations.js';
import { databaseSchema } from '../dist/db/schema.js';
import { createAlertDeliveryWorker } from '../dist/workers/alert-delivery-worker.js';
import { rateAlertListener } from '../dist/domain/alerts/evaluate-alerts.js';
import { ingestRates } from '../dist/domain/rates/ingest-rates.js';

const alertCount = Number(process.argv[2] ?? 100_000);
const updateCount = Number(process.argv[3] ?? 40);
const testDatabase = await createTestDatabase({ schemaName, migrationsFolder, schema: databaseSchema });
const { db } = testDatabase.database;
const box = createSecretBox(randomBytes(32));
const rows = (query) => testDatabase.database.rows(query);

// One client; alerts on USD/MARKET around a rate of 150: ABOVE and BELOW thresholds spread over
// 100–200, percent alerts (1–50%) with reference 150. Established alerts (not primed).
const [{ id: clientId }] = await rows(sql`insert into fx.api_clients (name, plan, public_key, private_key_hash, created_utc)
  values ('bench', 'Enterprise', ${`svc_pub_${randomBytes(24).toString('hex')}`}, ${randomBytes(32).toString('hex')}, now()) returning id`);
const sealed = box.encrypt('whsec_bench');
const started = performance.now();
await db.execute(sql`select setseed(0.42)`);
await db.execute(sql`
  insert into fx.rate_alerts (client_id, webhook_url, currency, source, alert_type, threshold_value, reference_rate, trigger_level, primed, signing_secret_sealed, created_utc)
  select ${clientId}, 'http://127.0.0.1:9/unused', 'USD', 'MARKET', t.alert_type, t.threshold, t.reference,
    case t.alert_type when 2 then 150 * (1 + t.threshold / 100) when 3 then 150 * (1 - t.threshold / 100) else t.threshold end,
    false, ${sealed}, now()
  from (
    select case when i % 10 < 4 then 0 when i % 10 < 8 then 1 when i % 10 = 8 then 2 else 3 end as alert_type,
           case when i % 10 < 8 then round((100 + random() * 100)::numeric, 2) else round((1 + random() * 49)::numeric, 2) end as threshold,
           case when i % 10 < 8 then null else 150::numeric end as reference
    from generate_series(1, ${alertCount}) as i
  ) t`);
await db.execute(sql`analyze fx.rate_alerts`);
await db.execute(sql`insert into fx.rate_observations (source, currency, buy, sell, mid, observed_at) values ('MARKET', 'USD', 150, 150, 150, now() - interval '1 day')`);
const seededMs = performance.now() - started;

// Small moves around 150, up and down, as a busy market produces: each crosses a band of thresholds.
const timings = [];
const enqueued = [];
let rate = 150;
for (let update = 0; update < updateCount; update++) {
  rate = Math.round((rate + (update % 2 === 0 ? 0.75 : -0.5)) * 100) / 100;
  const [{ before }] = await rows(sql`select count(*)::int as before from fx.alert_deliveries`);
  const t0 = performance.now();
  await db.transaction((tx) => ingestRates(tx, { source: 'MARKET', rates: [{ currency: 'USD', buy: rate, sell: rate }] }, new Date(), rateAlertListener()));
  timings.push(performance.now() - t0);
  const [{ after }] = await rows(sql`select count(*)::int as after from fx.alert_deliveries`);
  enqueued.push(after - before);
}
const sorted = [...timings].sort((a, b) => a - b);
const percentile = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const [{ plan }] = await rows(sql`explain (format text) select id from fx.rate_alerts where is_active and currency = 'USD' and source = 'MARKET' and not primed and alert_type = 0 and trigger_level > 150 and trigger_level <= 150.75`).then((result) => [{ plan: result.map((row) => Object.values(row)[0]).join(' | ') }]);

// Delivery throughput: the deliveries just enqueued, re-pointed at a local receiver, drained by one worker.
let received = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const target = `http://127.0.0.1:${receiver.address().port}/hook`;
// Real secrets, sealed per alert (the worker opens them with the alert id).
const firedAlerts = await rows(sql`select distinct subscription_id as id from fx.alert_deliveries`);
for (const { id } of firedAlerts) {
  await db.execute(sql`update fx.rate_alerts set webhook_url = ${target}, signing_secret_sealed = ${box.encrypt(`whsec_${randomBytes(16).toString('hex')}`, id)} where id = ${id}`);
}
const [{ total }] = await rows(sql`select count(*)::int as total from fx.alert_deliveries where status = 'pending'`);
const worker = createAlertDeliveryWorker({ db, box, policy: { allowPrivateTargets: true }, retryScheduleMs: [0, 5000, 30000], timeoutMs: 10_000, batchSize: 50 });
const t1 = performance.now();
while ((await worker.runOnce()) > 0);
const deliverySeconds = (performance.now() - t1) / 1000;
await worker.close();
receiver.close();
await testDatabase.cleanup();

console.log(
  JSON.stringify({
    database: testDatabase.database.driver,
    activeAlerts: alertCount,
    seedSeconds: Number((seededMs / 1000).toFixed(1)),
    updates: updateCount,
    evaluationMs: { median: Number(percentile(50).toFixed(2)), p95: Number(percentile(95).toFixed(2)), max: Number(sorted.at(-1).toFixed(2)) },
    deliveriesEnqueuedPerUpdate: { min: Math.min(...enqueued), max: Math.max(...enqueued), total: enqueued.reduce((a, b) => a + b, 0) },
    abovePlan: plan,
    delivery: { delivered: received, pending: total, seconds: Number(deliverySeconds.toFixed(2)), perSecond: Math.round(received / deliverySeconds) },
  }),
);
