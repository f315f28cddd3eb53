import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { traceQueriesWith } from '@svc/db';
import type { FastifyRequest } from 'fastify';
import { databaseQueryTracer } from './db-spans.js';
import type { ActiveTelemetry, TelemetryOptions } from './index.js';

const TRACER_NAME = '@svc/telemetry';

/** Names the request span as the HTTP semantic conventions do (`POST /verifications`), and ties it to the logs by correlation id. */
function nameRequestSpan(span: { updateName(name: string): unknown; setAttribute(key: string, value: string): unknown }, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route ? `${request.method} ${route}` : request.method);
  span.setAttribute('svc.correlation_id', request.id);
}

export async function createTelemetry(options: TelemetryOptions): Promise<ActiveTelemetry> {
  const service = resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, ...(options.serviceVersion ? { [ATTR_SERVICE_VERSION]: options.serviceVersion } : {}) });
  const fromEnvironment = detectResources({ detectors: [envDetector] });
  await fromEnvironment.waitForAsyncAttributes?.();
  const provider = new NodeTracerProvider({
    resource: service.merge(fromEnvironment),
    spanProcessors: [options.exporter ? new SimpleSpanProcessor(options.exporter) : new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context and baggage propagators.
  provider.register();

  // Both only inside a trace, so background polling stays quiet; commands are recorded by name only (their arguments may be keys with client ids).
  // ioredis is patched when next required: service-kit's connectRedis loads it through require, which the patch hooks (an ESM import it would not see).
  const redis = new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command });
  // Outbound HTTP (webhook deliveries, check providers): a CLIENT span and a `traceparent` header.
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  const fastify = new FastifyOtelInstrumentation({ instrumentHooks: false, requestHook: nameRequestSpan });
  const tracer = trace.getTracer(TRACER_NAME, options.serviceVersion);
  traceQueriesWith(databaseQueryTracer(tracer));

  return {
    fastifyPlugin: fastify.plugin(),
    currentTraceparent() {
      const span = trace.getActiveSpan();
      if (!span || !span.isRecording()) return null;
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ?? null;
    },
    inStoredTrace(traceparent, describe, work) {
      const spanOptions = describe();
      const parent = traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
      return tracer.startActiveSpan(spanOptions.name, { kind: SpanKind.CONSUMER, attributes: spanOptions.attributes }, parent, async (span) => {
        try {
          const result = await work();
          const failure = spanOptions.failureOf?.(result);
          if (failure) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
          return result;
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    logFields(): Record<string, string> {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    async shutdown() {
      traceQueriesWith(undefined);
      fastify.disable();
      redis.disable();
      undici.disable();
      await provider.shutdown();
    },
  };
}
