import { startPrivatePostgres, type PrivatePostgres } from '@svc/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCase, partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

// A PostgreSQL restart under a running identity (a server of this file's own, stopped and started
// again): while it is away every partner call is a 503 with Retry-After, never a 500 or a hang;
// once it is back identity serves again by itself, and a case it acknowledged is still there.

let postgres: PrivatePostgres;
let test: TestApp;
let partner: Partner;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  test = await buildTestApp({}, { databaseUrl: postgres.url });
  partner = await partnerWithToken(test);
}, 120_000);

afterAll(async () => {
  await test?.close();
  await postgres?.destroy();
});

const readCase = (id: string) => test.app.inject({ method: 'GET', url: `${BASE}/verifications/${id}`, headers: partner.headers });
const list = () => test.app.inject({ method: 'GET', url: `${BASE}/verifications?pageSize=100`, headers: partner.headers });

describe('identity while PostgreSQL restarts', () => {
  it('answers 503 with Retry-After while the database is away, and serves again once it is back', async () => {
    const acknowledged = await createCase(test, partner);
    expect(acknowledged.statusCode).toBe(201);
    const caseId = acknowledged.json<{ caseId: string }>().caseId;
    const before = (await list()).json<{ items: unknown[] }>().items.length;

    await postgres.stop();
    const refusedCreate = await createCase(test, partner);
    for (const answer of [await readCase(caseId), refusedCreate]) {
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers['content-type']).toContain('application/problem+json');
    }
    expect((await test.app.inject({ url: '/health' })).statusCode).toBe(503);

    await postgres.start();
    // The pool reconnects on its next query: the first answers after the restart may still be 503.
    await expect.poll(async () => (await readCase(caseId)).statusCode, { timeout: 30_000, interval: 100 }).toBe(200);
    expect((await createCase(test, partner)).statusCode).toBe(201);
    // The case refused with 503 was not created: one more than before, not two.
    expect((await list()).json<{ items: unknown[] }>().items.length).toBe(before + 1);
  }, 120_000);
});
