import { startPrivatePostgres, type PrivatePostgres } from '@svc/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from './helpers.js';

// A PostgreSQL restart under a running fx (a server of this file's own, stopped and started
// again): while it is away every answer that needs it is a 503 with Retry-After, never a 500 or a
// hang; once it is back fx serves again by itself, and what it acknowledged before is still there.

let postgres: PrivatePostgres;
let test: TestApp;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  test = await buildTestApp({}, { databaseUrl: postgres.url });
}, 120_000);

afterAll(async () => {
  await test?.close();
  await postgres?.destroy();
});

const history = () => test.app.inject({ url: '/api/v1/rates/history?currency=USD&denomination=original' });
const postCrypto = (symbol: string) =>
  test.app.inject({ method: 'POST', url: '/api/v1/admin/crypto', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { prices: [{ symbol, name: symbol, priceUsd: 100 }] } });
const symbols = async () => (await test.app.inject({ url: '/api/v1/crypto/latest?lang=en' })).json<{ prices: { symbol: string }[] }>().prices.map((price) => price.symbol);

describe('fx while PostgreSQL restarts', () => {
  it('answers 503 with Retry-After while the database is away, and serves again once it is back', async () => {
    expect((await history()).statusCode).toBe(200);
    expect((await postCrypto('BTC')).statusCode).toBe(201);

    await postgres.stop();
    for (const answer of [await history(), await postCrypto('ETH')]) {
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers['content-type']).toContain('application/problem+json');
      expect(answer.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    }
    const health = await test.app.inject({ url: '/api/v1/health' });
    expect(health.statusCode).toBe(503);

    await postgres.start();
    // The pool reconnects on its next query: the first answers after the restart may still be 503.
    await expect.poll(async () => (await history()).statusCode, { timeout: 30_000, interval: 100 }).toBe(200);
    expect((await postCrypto('SOL')).statusCode).toBe(201);
    const after = await symbols();
    expect(after).toEqual(expect.arrayContaining(['BTC', 'SOL']));
    // The write refused with 503 did not happen.
    expect(after).not.toContain('ETH');
  }, 120_000);
});
