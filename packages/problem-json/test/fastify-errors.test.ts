import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestApp, problemLogLines, PINO_INFO, type LogLine, type TestApp } from './helpers.js';

function httpError(message: string, statusCode: number): Error {
  return Object.assign(new Error(message), { statusCode });
}

describe('Fastify core errors and unknown routes', () => {
  let app: TestApp;
  let logLines: LogLine[];

  beforeAll(async () => {
    ({ app, logLines } = await buildTestApp((routes) => {
      routes.post('/echo', { schema: { body: z.object({ name: z.string() }) } }, (request) => request.body);
      routes.post('/small', { bodyLimit: 64 }, () => ({ ok: true }));
      routes.get('/teapot', () => {
        throw httpError("I'm a teapot, not a coffee machine.", 418);
      });
      routes.get('/not-allowed', () => {
        throw httpError('Use POST for this resource.', 405);
      });
      routes.get('/bare-400', () => {
        throw httpError('', 400);
      });
      routes.post(
        '/custom-validator',
        {
          schema: { body: z.object({ name: z.string() }) },
          validatorCompiler: () => (data: unknown) =>
            typeof data === 'object' && data !== null && 'name' in data && data.name === 'OK' ? { value: data } : { error: new Error('name must be OK') },
        },
        () => ({ ok: true }),
      );
    }));
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json', 'x-correlation-id': 'trace-json' },
      payload: '{"name": "x",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual({
      type: '/problems/validation-error',
      title: 'Validation Error',
      status: 400,
      detail: 'The request body is not valid JSON.',
      code: 'VALIDATION_ERROR',
      instance: '/echo',
      correlationId: 'trace-json',
      errors: [{ path: 'body', message: 'Body is not valid JSON' }],
    });
  });

  it('answers an empty body sent as JSON with 400 VALIDATION_ERROR', async () => {
    const response = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: 'The request body is empty but its Content-Type is application/json.',
      errors: [{ path: 'body', message: 'Body is empty' }],
    });
  });

  it('answers a Content-Length that does not match the body with 400 VALIDATION_ERROR', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json', 'content-length': '100' },
      payload: '{"name":"x"}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: 'The request body size does not match its Content-Length header.',
      errors: [{ path: 'headers.content-length', message: 'Does not match the body size' }],
    });
  });

  it('answers a body over the route bodyLimit with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await app.inject({ method: 'POST', url: '/small', payload: { padding: 'x'.repeat(100) } });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({
      type: '/problems/payload-too-large',
      title: 'Payload Too Large',
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      detail: 'The request body exceeds the limit of 64 bytes.',
      instance: '/small',
    });
  });

  it('answers an unsupported Content-Type with 415 UNSUPPORTED_MEDIA_TYPE naming the media type', async () => {
    const response = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/xml; charset=utf-8' }, payload: '<name/>' });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({
      type: '/problems/unsupported-media-type',
      title: 'Unsupported Media Type',
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      detail: 'Content-Type application/xml is not supported by this endpoint.',
    });
  });

  it('does not echo an overlong Content-Type back', async () => {
    const response = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': `application/${'x'.repeat(120)}` }, payload: 'a' });
    expect(response.statusCode).toBe(415);
    expect(response.json().detail).toBe('The request Content-Type is not supported by this endpoint.');
  });

  it('answers a custom validator error with 400 VALIDATION_ERROR at the request part', async () => {
    const response = await app.inject({ method: 'POST', url: '/custom-validator', payload: { name: 'no' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: 'Request validation failed: body: name must be OK',
      errors: [{ path: 'body', message: 'name must be OK' }],
    });
  });

  it('maps other 4xx errors by status through the generic table, keeping their message', async () => {
    const notAllowed = await app.inject({ method: 'GET', url: '/not-allowed' });
    expect(notAllowed.statusCode).toBe(405);
    expect(notAllowed.json()).toMatchObject({
      type: '/problems/method-not-allowed',
      title: 'Method Not Allowed',
      code: 'METHOD_NOT_ALLOWED',
      detail: 'Use POST for this resource.',
    });

    const teapot = await app.inject({ method: 'GET', url: '/teapot' });
    expect(teapot.statusCode).toBe(418);
    expect(teapot.json()).toMatchObject({ code: 'CLIENT_ERROR', title: "I'm a Teapot", detail: "I'm a teapot, not a coffee machine." });

    const bare = await app.inject({ method: 'GET', url: '/bare-400' });
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toMatchObject({ code: 'BAD_REQUEST', title: 'Bad Request', detail: 'Bad Request' });
  });

  it('answers an unknown route with 404 NOT_FOUND, without the query string', async () => {
    const response = await app.inject({ method: 'GET', url: '/no/such/route?secret=1', headers: { 'x-correlation-id': 'trace-404' } });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual({
      type: '/problems/not-found',
      title: 'Not Found',
      status: 404,
      detail: 'Route GET /no/such/route not found',
      code: 'NOT_FOUND',
      instance: '/no/such/route',
      correlationId: 'trace-404',
    });
    expect(response.body).not.toContain('secret');
  });

  it('answers a known path with the wrong method as an unknown route', async () => {
    const response = await app.inject({ method: 'DELETE', url: '/echo' });
    expect(response.statusCode).toBe(404);
    expect(response.json().detail).toBe('Route DELETE /echo not found');
  });

  it('logs client errors at info, with what the caller was told and no stack', async () => {
    await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-correlation-id': 'trace-info' } });
    const lines = problemLogLines(logLines).filter((line) => line.correlationId === 'trace-info');
    expect(lines).toEqual([
      expect.objectContaining({
        level: PINO_INFO,
        msg: 'request rejected: 404 NOT_FOUND',
        errorKind: 'unknown-route',
        problem: { status: 404, code: 'NOT_FOUND', detail: 'Route GET /nowhere not found' },
      }),
    ]);
    expect(lines[0]?.err).toBeUndefined();
  });
});
