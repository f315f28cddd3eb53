import type { AddressInfo } from 'node:net';
import { ApiError, createFxClient } from '@svc/fx-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './alert-helpers.js';
import { ADMIN_TOKEN, buildTestApp, postRates, type TestApp } from './helpers.js';

/** @svc/fx-client against the real service over HTTP. */
describe('the fx client', () => {
  let test: TestApp;
  let origin: string;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '100000', RATE_LIMIT_ANON_PER_HOUR: '100000' });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
    const timestampUtc = new Date(Date.now() - 60_000).toISOString();
    for (const source of ['CBS', 'MARKET'] as const) {
      const response = await postRates(test, { source, timestampUtc, rates: [{ currency: 'USD', buy: 110, sell: 112 }, { currency: 'EUR', buy: 120, sell: 122 }] });
      expect(response.statusCode, response.body).toBe(201);
    }
  });
  afterAll(() => test.close());

  it('sends the API key pair on every call, and throws a typed error for a wrong one', async () => {
    const keys = await createClient(test, 'Starter');
    const fx = createFxClient({ baseUrl: origin, apiKey: keys.publicKey, apiSecret: keys.privateKey });
    const { data: me } = await fx.api.GET('/api/v1/client/me');
    expect(me).toMatchObject({ id: keys.id, publicKey: keys.publicKey, isActive: true });

    const wrong = createFxClient({ baseUrl: origin, apiKey: keys.publicKey, apiSecret: `svc_prv_${'0'.repeat(64)}` });
    const failure = await wrong.api.GET('/api/v1/client/me').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 401, problem: { status: 401 } });
    expect((failure as ApiError).code).toMatch(/^[A-Z_]+$/);
  });

  it('revalidates reads by ETag: an unchanged answer is the very same object, a changed one is new', async () => {
    const fx = createFxClient({ baseUrl: origin });
    const first = await fx.latest({ lang: 'en' });
    expect(first.cbsRates.map((rate) => rate.currency).sort()).toEqual(['EUR', 'USD']);
    const again = await fx.latest({ lang: 'en' });
    expect(again).toBe(first);
    // Another query is another URL: its own answer, not the cached one.
    const german = await fx.latest({ lang: 'de' });
    expect(german).not.toBe(first);

    const override = await test.app.inject({ method: 'POST', url: '/api/v1/admin/overrides', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { currency: 'EUR', buy: 130, sell: 132, reason: 'client test' } });
    expect(override.statusCode).toBe(201);
    const changed = await fx.latest({ lang: 'en' });
    expect(changed).not.toBe(first);
    expect(changed.effectiveRates.find((rate) => rate.currency === 'EUR')).toMatchObject({ buy: 130, sell: 132, isManualOverride: true });
    await test.app.inject({ method: 'DELETE', url: '/api/v1/admin/overrides/EUR', headers: { 'X-Admin-Token': ADMIN_TOKEN } });
  });

  it('reads typed history and conversions, and throws problem answers with their code', async () => {
    const fx = createFxClient({ baseUrl: origin });
    const history = await fx.history({ currency: 'USD', days: 7 });
    expect(history).toMatchObject({ currency: 'USD', source: 'MARKET' });
    expect(history.points.at(-1)).toMatchObject({ buy: 110, sell: 112, mid: 111 });

    const conversion = await fx.convert({ from: 'USD', to: 'SYP', amount: '100' });
    expect(conversion).toMatchObject({ from: 'USD', to: 'SYP', result: 11_100 });
    expect(await fx.convert({ from: 'USD', to: 'SYP', amount: '100' })).toBe(conversion);

    const invalid = await fx.convert({ from: 'USD', to: 'SYP', amount: '-5' }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    const unknown = await fx.history({ currency: 'XYZ' }).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });
});
