import { SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { QueryTracer } from '@svc/db';

const OPERATION = /^\s*(\w+)/;
// A statement led by common table expressions is named for the change it makes, if any.
const MAIN_CHANGE = /\b(insert\s+into|update|delete\s+from)\s/i;
// The first table a statement reads or writes: `from "identity"."jobs"`, `into fx.alert_deliveries`, `update "x"`.
const COLLECTION = /\b(?:from|into|update)\s+(?:"?\w+"?\.)?"?(\w+)"?/i;

/** `INSERT webhook_deliveries` for `with … insert into "identity"."webhook_deliveries" …`. */
function summarise(text: string): { operation: string; collection: string | undefined } {
  const first = OPERATION.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  if (first !== 'WITH') return { operation: first, collection: COLLECTION.exec(text)?.[1] };
  const change = MAIN_CHANGE.exec(text);
  if (!change) return { operation: 'SELECT', collection: COLLECTION.exec(text)?.[1] };
  return { operation: change[1]!.split(/\s/)[0]!.toUpperCase(), collection: COLLECTION.exec(text.slice(change.index))?.[1] };
}
const MAX_QUERY_TEXT = 2048;

/**
 * postgres.js has no instrumentation maintained by OpenTelemetry (instrumentation-pg covers
 * node-postgres only), so @svc/db reports its queries here, on both drivers, as the database
 * client semantic conventions describe: a CLIENT span named `{operation} {table}`, with the
 * query text (parameterised: values are bound, never part of the text). Only inside a trace:
 * a worker's idle polling must not make a trace of its own every second.
 */
export function databaseQueryTracer(tracer: Tracer): QueryTracer {
  return {
    start(text, driver) {
      if (!trace.getActiveSpan()?.isRecording()) return undefined;
      const { operation, collection } = summarise(text);
      const span = tracer.startSpan(collection ? `${operation} ${collection}` : operation, {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': operation,
          ...(collection ? { 'db.collection.name': collection } : {}),
          'db.query.text': text.length > MAX_QUERY_TEXT ? `${text.slice(0, MAX_QUERY_TEXT)}…` : text,
          // Which of our drivers ran it: PGlite is PostgreSQL embedded in the process.
          'svc.db.driver': driver,
        },
      });
      return {
        end(error) {
          if (error !== undefined) {
            const failure = error instanceof Error ? error : new Error(typeof error === 'string' ? error : 'query failed');
            span.recordException(failure);
            span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
            span.setAttribute('error.type', (error as { code?: string }).code ?? failure.name);
          }
          span.end();
        },
      };
    },
  };
}
