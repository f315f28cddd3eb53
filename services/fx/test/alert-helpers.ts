import { createSecretBox } from '@svc/service-kit';
import { sql } from 'drizzle-orm';
import { createAlertDeliveryWorker } from '../src/workers/alert-delivery-worker.js';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from './helpers.js';

export { startReceiver, type ReceivedWebhook } from './webhook-receiver.js';

/** An fx app allowing loopback webhook targets, with a client, and a delivery worker the test drives. */
export async function buildAlertTestApp(env: Record<string, string> = {}, options: { clock?: () => Date; smtpCa?: string } = {}) {
  // Admin calls count against the per-IP limit like any other; tests post far more than 60 a minute.
  const test = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_ANON_PER_MINUTE: '100000', RATE_LIMIT_ANON_PER_HOUR: '100000', ...env }, options);
  const worker = createAlertDeliveryWorker({
    ...(options.clock ? { clock: options.clock } : {}),
    db: test.dependencies.database.db,
    box: createSecretBox(test.dependencies.secretsKey),
    policy: { allowPrivateTargets: true },
    retryScheduleMs: [0, 1, 1],
    timeoutMs: 2000,
    mailer: test.app.fxMail.mailer,
  });
  /** Runs the worker until no delivery is pending or in flight (retries are 1 ms apart). */
  async function drain(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      await worker.runOnce();
      const [row] = await test.dependencies.database.rows<{ open: number }>(sql`select count(*)::int as open from fx.alert_deliveries where status in ('pending', 'in_flight')`);
      if (!row || row.open === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error('deliveries did not settle');
  }
  return {
    ...test,
    drain,
    async close() {
      await worker.close();
      await test.close();
    },
  };
}

export type AlertTestApp = Awaited<ReturnType<typeof buildAlertTestApp>>;

export async function createClient(test: TestApp, plan = 'Free') {
  const response = await test.app.inject({ method: 'POST', url: '/api/v1/admin/clients', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { name: `client-${plan}`, plan } });
  if (response.statusCode !== 201) throw new Error(`client create failed: ${response.statusCode} ${response.body}`);
  const keys = response.json<{ id: string; publicKey: string; privateKey: string }>();
  return { ...keys, headers: { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey } };
}

/** Posts one rate with buy = sell = mid, so the watched mid is exactly `mid`. */
export async function postMid(test: TestApp, source: 'CBS' | 'MARKET', currency: string, mid: number) {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/v1/admin/rates',
    headers: { 'X-Admin-Token': ADMIN_TOKEN },
    payload: { source, force: true, rates: [{ currency, buy: mid, sell: mid }] },
  });
  if (response.statusCode !== 201) throw new Error(`rates failed: ${response.statusCode} ${response.body}`);
}
