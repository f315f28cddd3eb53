import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN } from './helpers.js';
import { buildAlertTestApp, createClient, postMid, type AlertTestApp } from './alert-helpers.js';
import { describeNeeding } from '@svc/db/testing';

// PGlite is one connection: concurrency is only real on PostgreSQL.
describeNeeding('DATABASE_URL')('rate alerts under concurrent updates (PostgreSQL)', () => {
  let test: AlertTestApp;
  beforeAll(async () => {
    test = await buildAlertTestApp();
  });
  afterAll(() => test.close());

  it('fires a crossing once when several updates of the same currency race', async () => {
    await postMid(test, 'MARKET', 'USD', 100);
    const client = await createClient(test, 'Enterprise');
    const created = await test.app.inject({
      method: 'POST',
      url: '/api/v1/client/webhooks',
      headers: client.headers,
      payload: { webhookUrl: 'http://127.0.0.1:9/unused', currency: 'USD', source: 'MARKET', alertType: 0, thresholdValue: 110 },
    });
    expect(created.statusCode).toBe(201);
    await postMid(test, 'MARKET', 'USD', 101); // the alert is now armed (no longer primed)
    const responses = await Promise.all(
      [111, 112, 113, 114, 115, 116].map((mid) =>
        test.app.inject({ method: 'POST', url: '/api/v1/admin/rates', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { source: 'MARKET', force: true, rates: [{ currency: 'USD', buy: mid, sell: mid }] } }),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    const [row] = await test.dependencies.database.rows<{ n: number }>(sql`select count(*)::int as n from fx.alert_deliveries`);
    expect(row?.n).toBe(1);
  });

  it('never lets racing creations exceed the plan allowance', async () => {
    const client = await createClient(test, 'Starter');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        test.app.inject({
          method: 'POST',
          url: '/api/v1/client/webhooks',
          headers: client.headers,
          payload: { webhookUrl: 'http://127.0.0.1:9/unused', currency: 'EUR', source: 'CBS', alertType: 0, thresholdValue: 1 },
        }),
      ),
    );
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(5);
    expect(responses.filter((response) => response.statusCode === 403)).toHaveLength(5);
  });
});
