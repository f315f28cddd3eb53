import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, stopTelemetry } from './index.js';

export interface InMemoryTelemetry {
  exporter: InMemorySpanExporter;
  /** Every span of one trace ended so far. */
  spansOf(traceId: string): ReadableSpan[];
  stop(): Promise<void>;
}

/** Tracing on, every span kept in memory as it ends (tests). Start it before building the app. */
export async function startInMemoryTelemetry(serviceName: string): Promise<InMemoryTelemetry> {
  const exporter = new InMemorySpanExporter();
  await startTelemetry({ serviceName, exporter });
  return {
    exporter,
    spansOf: (traceId) => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId),
    stop: stopTelemetry,
  };
}

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'];

/** Indented span tree of one trace, children by start time, each with its kind and duration: for a test to print. */
export function formatTraceTree(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    // A parent not among the spans (a partner's own span) makes its child a root here.
    const key = parent && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [`trace ${spans[0]?.spanContext().traceId ?? '(empty)'}`];
  const walk = (parent: string | undefined, depth: number) => {
    const ordered = [...(children.get(parent) ?? [])].sort((a, b) => hrMs(a.startTime) - hrMs(b.startTime));
    for (const span of ordered) {
      const ms = hrMs(span.endTime) - hrMs(span.startTime);
      lines.push(`${'  '.repeat(depth + 1)}${span.name} [${KINDS[span.kind] ?? span.kind}, ${span.resource.attributes['service.name'] as string}] ${ms.toFixed(1)} ms`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

function hrMs([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}
