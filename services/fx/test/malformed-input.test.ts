import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from './helpers.js';

// Inputs the fuzz test (fuzz.test.ts) found answering a 5xx, pinned one by one.
let test: TestApp;

beforeAll(async () => {
  test = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await test.close();
});

describe('malformed input', () => {
  it('a NUL character in stored text is a 400 naming the field, not a 500 from PostgreSQL', async () => {
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/admin/overrides', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { currency: 'USD', buy: 1, sell: 2, reason: 'typo\u0000' } });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ errors: [{ path: 'body.reason', message: 'must not contain the NUL character (U+0000)' }] });
  });

  it('a NUL character in a query parameter is a 400 too', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/api/v1/rates/latest?currencies=US%00D' });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ errors: [{ path: 'query.currencies', message: 'must not contain the NUL character (U+0000)' }] });
  });
});
