import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InternalError, NotFoundError } from '../src/index.js';
import { buildTestApp, problemLogLines, PINO_ERROR, PINO_INFO, type LogLine, type TestApp } from './helpers.js';

const GENERIC_500 = {
  type: '/problems/internal-error',
  title: 'Internal Server Error',
  status: 500,
  detail: 'An unexpected error occurred.',
  code: 'INTERNAL_ERROR',
};

describe('unexpected errors', () => {
  let app: TestApp;
  let logLines: LogLine[];

  function linesFor(correlationId: string): LogLine[] {
    return problemLogLines(logLines).filter((line) => line.correlationId === correlationId);
  }

  beforeAll(async () => {
    ({ app, logLines } = await buildTestApp((routes) => {
      routes.get('/crash', () => {
        throw new Error('secret db password');
      });
      routes.get('/crash-async', async () => {
        await Promise.resolve();
        throw Object.assign(new Error('upstream said 503: secret upstream token'), { statusCode: 503 });
      });
      routes.get('/throw-string', () => {
        // Deliberately not an Error: some libraries reject with plain values.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw 'secret string';
      });
      routes.get('/bad-response', { schema: { response: { 200: z.object({ id: z.string() }) } } }, () => ({ id: 42 }) as unknown as { id: string });
      routes.get('/internal', () => {
        throw new InternalError('The report could not be generated.', new Error('secret disk path /var/lib/x'));
      });
      routes.get('/missing', () => {
        throw new NotFoundError('Case 7 was not found.');
      });
      // Thrown the way Drizzle does with a driver's failure: its own Error, the driver's as the cause.
      routes.get('/driver-failure/:code', (request) => {
        const { code } = request.params as { code: string };
        const driverError = Object.assign(new Error(`secret driver detail ${code}`), { code });
        throw new Error('Failed query: select secret from table', { cause: driverError });
      });
      routes.register(async (scope) => {
        scope.addHook('onRequest', async () => {
          await Promise.resolve();
          throw new Error('secret hook failure');
        });
        scope.get('/hooked', () => ({ unreachable: true }));
      });
    }));
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers a thrown plain Error with a bare 500 and logs the error with the correlation id', async () => {
    const response = await app.inject({ method: 'GET', url: '/crash', headers: { 'x-correlation-id': 'trace-500' } });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual({ ...GENERIC_500, instance: '/crash', correlationId: 'trace-500' });
    expect(response.body).not.toContain('secret');
    expect(response.body).not.toContain('stack');
    expect(response.body).not.toMatch(/\bat .+:\d+:\d+/);

    const lines = linesFor('trace-500');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: PINO_ERROR,
      msg: 'request failed: 500 INTERNAL_ERROR',
      correlationId: 'trace-500',
      errorKind: 'unexpected',
      problem: { status: 500, code: 'INTERNAL_ERROR' },
      err: { type: 'Error', message: 'secret db password' },
    });
    expect(line?.err?.stack).toMatch(/^Error: secret db password\n\s+at /);
  });

  it('answers an error carrying a 5xx statusCode with a bare 500 too', async () => {
    const response = await app.inject({ method: 'GET', url: '/crash-async', headers: { 'x-correlation-id': 'trace-503' } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ ...GENERIC_500, instance: '/crash-async', correlationId: 'trace-503' });
    expect(linesFor('trace-503')[0]?.err?.message).toBe('upstream said 503: secret upstream token');
  });

  it('answers a lost or refused database connection with 503 SERVICE_UNAVAILABLE and Retry-After, found through the cause', async () => {
    // postgres.js's own codes, a socket's, and PostgreSQL's: terminated session, crash, starting up, too many connections, class 08.
    for (const code of ['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', '57P01', '57P02', '57P03', '53300', '08006', '08001']) {
      const response = await app.inject({ method: 'GET', url: `/driver-failure/${code}`, headers: { 'x-correlation-id': `trace-${code}` } });
      expect(response.statusCode, code).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.json()).toEqual({
        type: '/problems/service-unavailable',
        title: 'Service Unavailable',
        status: 503,
        detail: 'A service this one depends on could not be reached while answering; retry the request.',
        code: 'SERVICE_UNAVAILABLE',
        instance: `/driver-failure/${code}`,
        correlationId: `trace-${code}`,
      });
      expect(response.body).not.toContain('secret');
      // An operator must see it: logged as an error, with the driver's message in the cause.
      const [line] = linesFor(`trace-${code}`);
      expect(line).toMatchObject({ level: PINO_ERROR, errorKind: 'dependency-unavailable', problem: { status: 503, code: 'SERVICE_UNAVAILABLE' } });
      expect(JSON.stringify(line?.err)).toContain(`secret driver detail ${code}`);
    }
  });

  it('still answers a database error that is not about the connection with a bare 500', async () => {
    for (const code of ['23505', '42P01', '40001', 'ERR_SOMETHING']) {
      const response = await app.inject({ method: 'GET', url: `/driver-failure/${code}` });
      expect(response.statusCode, code).toBe(500);
      expect(response.json()).toMatchObject({ code: 'INTERNAL_ERROR' });
    }
  });

  it('answers a thrown non-Error value with a bare 500', async () => {
    const response = await app.inject({ method: 'GET', url: '/throw-string', headers: { 'x-correlation-id': 'trace-string' } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ ...GENERIC_500, instance: '/throw-string', correlationId: 'trace-string' });
    expect(linesFor('trace-string')).toEqual([expect.objectContaining({ level: PINO_ERROR, errorKind: 'unexpected', err: 'secret string' })]);
  });

  it('answers a response that fails its schema with a bare 500 and logs the zod issues', async () => {
    const response = await app.inject({ method: 'GET', url: '/bad-response', headers: { 'x-correlation-id': 'trace-serialize' } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ ...GENERIC_500, instance: '/bad-response', correlationId: 'trace-serialize' });
    const [line] = linesFor('trace-serialize');
    expect(line).toMatchObject({
      level: PINO_ERROR,
      errorKind: 'response-serialization',
      err: { type: 'ResponseSerializationError' },
    });
    // pino's error serializer appends the cause: here the zod issues.
    expect(line?.err?.message).toMatch(/^Response doesn't match the schema: \[/);
    expect(line?.err?.message).toContain('"message": "Invalid input: expected string, received number"');
  });

  it('shows the chosen detail of a deliberate InternalError but only logs its cause', async () => {
    const response = await app.inject({ method: 'GET', url: '/internal', headers: { 'x-correlation-id': 'trace-internal' } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ ...GENERIC_500, detail: 'The report could not be generated.', instance: '/internal', correlationId: 'trace-internal' });
    expect(response.body).not.toContain('secret');
    const [line] = linesFor('trace-internal');
    expect(line).toMatchObject({ level: PINO_ERROR, errorKind: 'problem-error', err: { type: 'InternalError' } });
    expect(line?.err?.message).toBe('The report could not be generated.: secret disk path /var/lib/x');
  });

  it('logs a deliberate 4xx at info without the error', async () => {
    const response = await app.inject({ method: 'GET', url: '/missing', headers: { 'x-correlation-id': 'trace-missing' } });
    expect(response.statusCode).toBe(404);
    expect(linesFor('trace-missing')).toEqual([
      expect.objectContaining({
        level: PINO_INFO,
        msg: 'request rejected: 404 NOT_FOUND',
        errorKind: 'problem-error',
        problem: { status: 404, code: 'NOT_FOUND', detail: 'Case 7 was not found.' },
      }),
    ]);
    expect(linesFor('trace-missing')[0]?.err).toBeUndefined();
  });

  it('answers an error thrown by a hook with problem+json too', async () => {
    const response = await app.inject({ method: 'GET', url: '/hooked', headers: { 'x-correlation-id': 'trace-hook' } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ ...GENERIC_500, instance: '/hooked', correlationId: 'trace-hook' });
  });
});
