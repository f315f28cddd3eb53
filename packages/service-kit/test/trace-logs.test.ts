import { Writable } from 'node:stream';
import { activeTelemetry } from '@svc/telemetry';
import { startInMemoryTelemetry } from '@svc/telemetry/testing';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { serverOptions } from '../src/logging.js';

describe('log lines with tracing on', () => {
  it('carry no trace fields while tracing is off', () => {
    expect(serverOptions({ logLevel: 'info', serviceName: 'kit' }).logger).not.toHaveProperty('mixin');
  });

  it("carry the request's correlation id together with the trace and span ids of the partner's continued trace", async () => {
    const telemetry = await startInMemoryTelemetry('kit');
    try {
      const lines: Array<Record<string, unknown>> = [];
      const options = serverOptions({ logLevel: 'info', serviceName: 'kit' });
      const stream = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
          callback();
        },
      });
      const app = Fastify({ ...options, logger: { ...(options.logger as object), stream } } as FastifyServerOptions);
      await app.register(activeTelemetry()!.fastifyPlugin);
      app.get('/work', async (request) => {
        request.log.info('doing the work');
        return { ok: true };
      });
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const response = await app.inject({ url: '/work', headers: { 'x-correlation-id': 'corr-traced', traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
      expect(response.statusCode).toBe(200);
      await app.close();
      const line = lines.find((each) => each.msg === 'doing the work');
      expect(line).toMatchObject({ correlationId: 'corr-traced', trace_id: traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
      // The span the line names is one of the request's, and the request span names the correlation id.
      const spans = telemetry.spansOf(traceId);
      expect(spans.map((span) => span.spanContext().spanId)).toContain(line!.span_id);
      expect(spans.find((span) => span.name === 'GET /work')?.attributes['svc.correlation_id']).toBe('corr-traced');
    } finally {
      await telemetry.stop();
    }
  });
});
