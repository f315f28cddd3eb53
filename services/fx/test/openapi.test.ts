import { expectLintReadyOpenApi } from '@svc/service-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from './helpers.js';

describe('OpenAPI document', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await buildTestApp();
  });
  afterAll(() => testApp.close());

  const served = async () => (await testApp.app.inject({ method: 'GET', url: '/docs/json' })).json<Parameters<typeof expectLintReadyOpenApi>[0]>();

  it('gives every operation what redocly lint asks: a unique operationId, tags, security and a 4xx', async () => {
    const operations = expectLintReadyOpenApi(await served());
    const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
    expect(byId.get('getLatestRates')).toMatchObject({ method: 'get', path: '/api/v1/rates/latest' });
    // Anonymous, or with a key pair for the key's own limits.
    expect(byId.get('getLatestRates')?.security).toEqual([{}, { apiKey: [], apiSecret: [] }]);
    expect(byId.get('getHealth')?.security).toEqual([]);
  });

  it('documents the stream, conversion, currencies and the history representations', async () => {
    const document = await served();
    const byId = new Map(expectLintReadyOpenApi(document).map((operation) => [operation.operationId, operation]));
    expect(byId.get('streamRates')).toMatchObject({ method: 'get', path: '/api/v1/rates/stream' });
    expect(byId.get('convertAmount')).toMatchObject({ method: 'get', path: '/api/v1/convert' });
    expect(byId.get('listCurrencies')).toMatchObject({ method: 'get', path: '/api/v1/currencies' });
    const paths = (document as unknown as { paths: Record<string, { get: { responses: Record<string, { content?: Record<string, unknown> }> } }> }).paths;
    expect(Object.keys(paths['/api/v1/rates/stream']?.get.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(Object.keys(paths['/api/v1/rates/history']?.get.responses['200']?.content ?? {}).sort()).toEqual(['application/json', 'application/x-ndjson', 'text/csv']);
    expect(Object.keys(paths['/api/v1/convert']?.get.responses ?? {})).toEqual(expect.arrayContaining(['200', '304', '400', '404', '429']));
  });

  it('documents the 401 (a missing or wrong X-Admin-Token) and the validation 400 of every admin route', async () => {
    const operations = expectLintReadyOpenApi(await served()).filter((operation) => operation.path.startsWith('/api/v1/admin/'));
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(
      ['changeApiClientEmail', 'changeApiClientPlan', 'createApiClient', 'deactivateApiClient', 'ingestCryptoPrices', 'ingestGoldPrices', 'ingestRates', 'removeRateOverride', 'rotateApiClientSecret', 'setRateOverride'].sort(),
    );
    for (const operation of operations) {
      expect(operation.security, operation.operationId).toEqual([{ adminToken: [] }]);
      expect(Object.keys(operation.responses), operation.operationId).toEqual(expect.arrayContaining(['400', '401']));
    }
  });

  it('answers a client id that is not a UUID with the documented problem+json 400', async () => {
    const response = await testApp.app.inject({ method: 'POST', url: '/api/v1/admin/clients/not-a-uuid/deactivate', headers: { 'x-admin-token': ADMIN_TOKEN } });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('answers 400 to a health check with a query parameter, as documented', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/api/v1/health?verbose=1' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
