import type { FastifyPluginCallback } from 'fastify';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/** What the process runs with while tracing is on; absent (null) while it is off. */
export interface ActiveTelemetry {
  /** @fastify/otel's plugin: a span per request, continuing the caller's `traceparent`. Register it before any other hook. */
  readonly fastifyPlugin: FastifyPluginCallback;
  /** The active span's W3C `traceparent`, or null outside any sampled span. */
  currentTraceparent(): string | null;
  /** Runs `work` in a span continuing the trace a queued row was written in (its stored `traceparent`). */
  inStoredTrace<T>(traceparent: string | null, describe: () => QueuedWorkSpan<T>, work: () => Promise<T>): Promise<T>;
  /** The pino mixin: `trace_id` and `span_id` of the active span on every log line. */
  logFields(): Record<string, string>;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** A worker's span for one queued row: `job run-checks`, `webhook verification.approved`… */
export interface QueuedWorkSpan<T = unknown> {
  name: string;
  attributes: Record<string, string | number>;
  /** The error a result reports without throwing (a failed attempt), to mark the span failed. */
  failureOf?: (result: T) => string | null | undefined;
}

export interface TelemetryOptions {
  /** `service.name` (OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES still win, as the specification says). */
  serviceName: string;
  serviceVersion?: string;
  /**
   * Where spans go. Default: OTLP over HTTP/protobuf, configured by the standard OTEL_EXPORTER_OTLP_*
   * variables, batched. Tests pass an InMemorySpanExporter (sent span by span).
   */
  exporter?: SpanExporter;
}

let active: ActiveTelemetry | null = null;
let starting: Promise<ActiveTelemetry> | null = null;

/**
 * Turns tracing on for this process. The OpenTelemetry SDK and its instrumentations are imported
 * here and nowhere else, so a process that never calls this loads none of them: with tracing
 * off, every function below is one null check. Call it before the app is built and Redis is
 * connected (the Fastify plugin and the ioredis patch must be in place first).
 */
export function startTelemetry(options: TelemetryOptions): Promise<ActiveTelemetry> {
  starting ??= import('./sdk.js').then(async ({ createTelemetry }) => (active = await createTelemetry(options)));
  return starting;
}

/** Flushes and turns tracing off (at shutdown, after the app and its workers have stopped). */
export async function stopTelemetry(): Promise<void> {
  const stopping = active;
  active = null;
  starting = null;
  await stopping?.shutdown();
}

export function activeTelemetry(): ActiveTelemetry | null {
  return active;
}

/** The `traceparent` to store with queued work (null when tracing is off or nothing is traced). */
export function currentTraceparent(): string | null {
  return active ? active.currentTraceparent() : null;
}

/** Runs queued work in its stored trace, or just runs it when tracing is off (`describe` is then never called). */
export function inStoredTrace<T>(traceparent: string | null, describe: () => QueuedWorkSpan<T>, work: () => Promise<T>): Promise<T> {
  return active ? active.inStoredTrace(traceparent, describe, work) : work();
}

/** True when either OTLP endpoint variable is set: the switch for tracing. */
export function tracingRequested(env: { OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined }): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
