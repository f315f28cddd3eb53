import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCase, getCase, partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

// Every answer under /api/ speaks of one caller; a route that never wrote a cache policy must
// still not be stored. The routes that do set one keep theirs.
describe('Cache-Control on identity answers', () => {
  let test: TestApp;
  let acme: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test.close());

  const cacheControl = async (request: InjectOptions): Promise<unknown> => (await test.app.inject(request)).headers['cache-control'];

  it('is no-store on every API route of every audience, answered or refused, without a route writing it', async () => {
    const created = await createCase(test, acme, { documentType: 'SyrianPassport' });
    const caseId = created.json<{ caseId: string }>().caseId;
    expect((await getCase(test, acme, caseId)).headers['cache-control']).toBe('no-store');
    for (const url of [`${BASE}/verifications`, `${BASE}/webhooks`, `${BASE}/portal/session`, '/api/capture/v1/status', '/api/internal/v1/session']) {
      expect(await cacheControl({ method: 'GET', url }), `GET ${url} without credentials`).toBe('no-store');
    }
    expect(await cacheControl({ method: 'GET', url: `${BASE}/no-such-route` }), 'an unknown API route').toBe('no-store');
    expect(await cacheControl({ method: 'POST', url: `${BASE}/verifications`, headers: acme.headers, payload: { documentType: 'NotADocument' } }), 'a validation problem').toBe('no-store');
  });

  it("leaves a route's own policy alone", async () => {
    expect(await cacheControl({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).toBe('public, max-age=3600');
  });
});
