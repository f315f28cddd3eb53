import type { DatabaseDriver } from './database.js';

/** One query's span, ended when the query settles. */
export interface QuerySpan {
  end(error?: unknown): void;
}

/**
 * Starts a span for a query about to run, or returns undefined (no trace to attach it to).
 * Installed by @svc/telemetry when tracing is on; this package stays free of OpenTelemetry.
 */
export interface QueryTracer {
  start(text: string, driver: DatabaseDriver): QuerySpan | undefined;
}

let tracer: QueryTracer | undefined;

/** Every query of every database opened in this process is reported to `next` (undefined: none). */
export function traceQueriesWith(next: QueryTracer | undefined): void {
  tracer = next;
}

/** Runs a query, inside a span when a tracer is installed; without one, nothing but a read of one variable. */
export function tracedQuery<Result>(text: string, driver: DatabaseDriver, run: () => Promise<Result>): Promise<Result> {
  const span = tracer?.start(text, driver);
  if (!span) return run();
  return run().then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      span.end(error);
      throw error;
    },
  );
}

/**
 * A postgres.js query is a lazy promise: it runs when first awaited (after Drizzle has chosen
 * `.values()` or not). The span is ended by a reaction added with the native `then`, which does
 * not start the query itself.
 */
export function traceLazyQuery<Query extends Promise<unknown>>(text: string, query: Query): Query {
  const span = tracer?.start(text, 'postgres');
  if (span) {
    void Promise.prototype.then.call(
      query,
      () => span.end(),
      (error: unknown) => span.end(error),
    );
  }
  return query;
}
