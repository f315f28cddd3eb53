import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './alert-helpers.js';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from './helpers.js';

// Every numeric input has an explicit range; these are the values the fuzz test found worth pinning.
let test: TestApp;
let client: Awaited<ReturnType<typeof createClient>>;

beforeAll(async () => {
  test = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  client = await createClient(test, 'Enterprise');
});
afterAll(async () => {
  await test.close();
});

const webhook = { webhookUrl: 'http://127.0.0.1:9/fx', currency: 'USD', source: 'MARKET', alertType: 0, thresholdValue: 120 };

/** The distinct errors of a problem document (one value can break two checks with the same message). */
function errorsOf(body: string): { path: string; message: string }[] {
  const { errors } = JSON.parse(body) as { errors: { path: string; message: string }[] };
  return [...new Set(errors.map((error) => JSON.stringify({ path: error.path, message: error.message })))].map((text) => JSON.parse(text) as { path: string; message: string });
}

describe('numeric ranges', () => {
  it.each([1e21, 1e300, Number.MAX_VALUE, Number('123456789012345678901234567890'), 5e-324, 0.000000004])('gold refuses a price of %s with a 400, like the other amounts', async (priceUsd) => {
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/admin/gold', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { prices: [{ unit: 'gram', karat: 24, priceUsd }] } });
    expect(response.statusCode, response.body).toBe(400);
    expect(errorsOf(response.body)).toEqual([{ path: 'body.prices.0.priceUsd', message: expect.stringMatching(/^must be at (least 0\.00000001|most 1000000000000)/) }]);
  });

  it.each([
    [5e-324, 'must be at least 0.00000001'],
    [0, 'must be at least 0.00000001'],
    [1e21, 'must be at most 1000000000000'],
  ])('a webhook threshold of %s is a 400 (%s), never stored', async (thresholdValue, message) => {
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/client/webhooks', headers: client.headers, payload: { ...webhook, thresholdValue } });
    expect(response.statusCode, response.body).toBe(400);
    expect(errorsOf(response.body)).toEqual([{ path: 'body.thresholdValue', message }]);
  });

  it.each([-1, 4, 1.5, 1e21])('a webhook alertType of %s is a 400 naming the range', async (alertType) => {
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/client/webhooks', headers: client.headers, payload: { ...webhook, alertType } });
    expect(response.statusCode, response.body).toBe(400);
    expect(errorsOf(response.body)).toEqual([{ path: 'body.alertType', message: 'must be an integer from 0 to 3' }]);
  });

  it.each([
    ['0', 'must be at least 1'],
    ['3651', 'must be at most 3650'],
    ['1e21', 'must be at most 3650'],
    ['1.5', 'must be a whole number of days'],
    ['NaN', 'must be a whole number of days'],
    ['Infinity', 'must be a whole number of days'],
  ])('history days=%s is a 400 (%s)', async (days, message) => {
    const response = await test.app.inject({ method: 'GET', url: `/api/v1/rates/history?currency=USD&days=${days}` });
    expect(response.statusCode, response.body).toBe(400);
    // 1e21 is both above the range and past the safe integers: the range is among its messages.
    expect(errorsOf(response.body)).toContainEqual({ path: 'query.days', message });
  });
});
