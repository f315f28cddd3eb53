import { Writable } from 'node:stream';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { serverOptions } from '../src/logging.js';

/** A Fastify app with the services' logger options, writing its log lines into `lines`. */
function appLoggingTo(lines: Array<Record<string, unknown>>, level: string) {
  const options = serverOptions({ logLevel: level, serviceName: 'kit' });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const app = Fastify({ ...options, logger: { ...(options.logger as object), stream } } as FastifyServerOptions);
  app.get('/quiet', async (request) => {
    request.log.debug({ detail: 'below the level' }, 'not written');
    return { ok: true };
  });
  app.get('/loud', async (request) => {
    request.log.warn({ client: { secret: 'hunter2' } }, 'written');
    request.log.child({ step: 'inner' }).error('from a child');
    return { ok: true, level: request.log.level };
  });
  return app;
}

describe('request loggers', () => {
  it('write with the request correlation id and service when the level is enabled, and nothing below it', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = appLoggingTo(lines, 'warn');
    const quiet = await app.inject({ url: '/quiet', headers: { 'x-correlation-id': 'corr-quiet' } });
    expect(quiet.statusCode).toBe(200);
    const loud = await app.inject({ url: '/loud', headers: { 'x-correlation-id': 'corr-loud' } });
    expect(loud.json()).toEqual({ ok: true, level: 'warn' });
    await app.close();
    expect(lines.filter((line) => line.correlationId === 'corr-quiet')).toEqual([]);
    const written = lines.filter((line) => line.correlationId === 'corr-loud');
    expect(written).toEqual([
      expect.objectContaining({ level: 40, msg: 'written', service: 'kit', client: { secret: '[redacted]' } }),
      expect.objectContaining({ level: 50, msg: 'from a child', service: 'kit', step: 'inner' }),
    ]);
  });

  it('log every request at info with its correlation id, as Fastify does', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = appLoggingTo(lines, 'info');
    await app.inject({ url: '/quiet', headers: { 'x-correlation-id': 'corr-info' } });
    await app.close();
    expect(lines.filter((line) => line.correlationId === 'corr-info').map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
  });
});
