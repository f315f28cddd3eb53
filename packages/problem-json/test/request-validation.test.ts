import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { problemJsonPlugin } from '../src/index.js';
import { buildTestApp, type TestApp } from './helpers.js';

const VALID_BODY = { name: 'Damascus board', rates: [{ buy: 13000, sell: 13100 }] };

describe('request validation through fastify-type-provider-zod', () => {
  let app: TestApp;

  beforeAll(async () => {
    ({ app } = await buildTestApp((routes) => {
      routes.post(
        '/rates/:currency',
        {
          schema: {
            params: z.object({ currency: z.enum(['USD', 'EUR']) }),
            querystring: z.object({ source: z.enum(['official', 'parallel']), limit: z.coerce.number().int().max(100).optional() }),
            body: z.object({
              name: z.string().min(1),
              rates: z.array(z.object({ buy: z.number().positive(), sell: z.number().positive() })).min(1),
              metadata: z.strictObject({ note: z.string() }).optional(),
            }),
          },
        },
        () => ({ accepted: true }),
      );
      routes.get('/secured', { schema: { headers: z.object({ 'x-api-key': z.string().min(10) }) } }, () => ({ ok: true }));
      routes.post('/many', { schema: { body: z.object(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`field${i}`, z.string()]))) } }, () => ({
        ok: true,
      }));
    }));
  });

  afterAll(async () => {
    await app.close();
  });

  it('accepts a valid request (the schemas themselves are sound)', async () => {
    const response = await app.inject({ method: 'POST', url: '/rates/USD?source=official', payload: VALID_BODY });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ accepted: true });
  });

  it('lists every nested body failure with its full path', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/rates/USD?source=official',
      headers: { 'x-correlation-id': 'trace-body' },
      payload: { rates: [{ buy: -1, sell: 'a' }, { buy: 2 }], metadata: { note: 'n', extra: 1 } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const errors = [
      { path: 'body.name', message: 'Invalid input: expected string, received undefined' },
      { path: 'body.rates.0.buy', message: 'Too small: expected number to be >0' },
      { path: 'body.rates.0.sell', message: 'Invalid input: expected number, received string' },
      { path: 'body.rates.1.sell', message: 'Invalid input: expected number, received undefined' },
      { path: 'body.metadata.extra', message: 'Unrecognized key' },
    ];
    expect(response.json()).toEqual({
      type: '/problems/validation-error',
      title: 'Validation Error',
      status: 400,
      detail: `Request validation failed: ${errors.map((error) => `${error.path}: ${error.message}`).join('; ')}`,
      code: 'VALIDATION_ERROR',
      instance: '/rates/USD',
      correlationId: 'trace-body',
      errors,
    });
  });

  it('reports a body of the wrong type at the path `body`', async () => {
    const response = await app.inject({ method: 'POST', url: '/rates/USD?source=official', payload: [] });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ path: 'body', message: 'Invalid input: expected object, received array' }]);
  });

  it('prefixes query failures with `query.` and lists all of them', async () => {
    const response = await app.inject({ method: 'POST', url: '/rates/USD?source=black&limit=500', payload: VALID_BODY });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: 'Request validation failed: query.source: Invalid option: expected one of "official"|"parallel"; query.limit: Too big: expected number to be <=100',
      errors: [
        { path: 'query.source', message: 'Invalid option: expected one of "official"|"parallel"' },
        { path: 'query.limit', message: 'Too big: expected number to be <=100' },
      ],
    });
  });

  it('prefixes path parameter failures with `params.`', async () => {
    const response = await app.inject({ method: 'POST', url: '/rates/GBP?source=official', payload: VALID_BODY });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      instance: '/rates/GBP',
      errors: [{ path: 'params.currency', message: 'Invalid option: expected one of "USD"|"EUR"' }],
    });
  });

  it('prefixes header failures with `headers.`', async () => {
    const response = await app.inject({ method: 'GET', url: '/secured', headers: { 'x-api-key': 'short' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ path: 'headers.x-api-key', message: 'Too small: expected string to have >=10 characters' }]);
  });

  it('names the first ten failures in the detail and all of them in `errors`', async () => {
    const response = await app.inject({ method: 'POST', url: '/many', payload: {} });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.errors).toHaveLength(12);
    expect(body.errors[11]).toEqual({ path: 'body.field11', message: 'Invalid input: expected string, received undefined' });
    expect(body.detail).toMatch(/^Request validation failed: body\.field0: .*; body\.field9: Invalid input: expected string, received undefined; and 2 more$/);
    expect(body.detail).not.toContain('field10');
  });
});

describe("request validation through Fastify's own (ajv) validator", () => {
  it('maps `error.validation` to field paths, including missing and extra properties', async () => {
    const app = Fastify();
    await app.register(problemJsonPlugin);
    app.post(
      '/native',
      {
        schema: {
          body: {
            type: 'object',
            required: ['name', 'rates'],
            properties: { name: { type: 'string' }, rates: { type: 'array', items: { type: 'object', properties: { buy: { type: 'number', minimum: 0 } } } } },
          },
        },
      },
      () => ({ ok: true }),
    );
    app.get('/native-query', { schema: { querystring: { type: 'object', properties: { 'a/b': { type: 'integer' } } } } }, () => ({ ok: true }));

    const body = await app.inject({ method: 'POST', url: '/native', payload: { rates: [{ buy: -3 }] } });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      // ajv stops at the first failure unless allErrors is set; Fastify leaves it off.
      errors: [{ path: 'body.name', message: "must have required property 'name'" }],
    });

    const nested = await app.inject({ method: 'POST', url: '/native', payload: { name: 'x', rates: [{ buy: -3 }] } });
    expect(nested.json().errors).toEqual([{ path: 'body.rates.0.buy', message: 'must be >= 0' }]);

    const escaped = await app.inject({ method: 'GET', url: '/native-query?a%2Fb=x' });
    expect(escaped.json().errors).toEqual([{ path: 'query.a/b', message: 'must be integer' }]);
    await app.close();
  });
});
