import type { Database } from '@svc/db';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { routePattern } from './request-path.js';
import { requestSeriesMetrics } from './request-series.js';

/** Which counter store answers rate-limit checks: shared Redis, the embedded memory store, or memory while Redis fails. */
export type LimiterStoreState = 'redis' | 'memory' | 'memory-fallback';
const LIMITER_STORE_STATES: readonly LimiterStoreState[] = ['redis', 'memory', 'memory-fallback'];

/** One row of @svc/outbox's queueDepth (structurally: service-kit does not depend on the outbox). */
export interface QueueDepthRow {
  kind: string;
  status: string;
  count: number;
  oldestCreatedAt: Date | null;
}

/** The open statuses queueDepth({ openOnly: true }) reports; always exported, at 0 when empty. */
const OPEN_STATUSES = ['pending', 'in_flight'] as const;

/** Labels an unmatched request (404) gets instead of its URL: raw URLs would make one series per probe. */
export const UNMATCHED_ROUTE = '<unmatched>';

export interface ServiceMetrics {
  /** This app's own registry: never prom-client's global one, so apps in one test process do not collide. */
  readonly registry: Registry;
  /** The exposition text of a scrape, and its Content-Type. */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** Adds prom-client's process metrics (CPU, memory, event loop, GC); once, by the process that serves them. */
  collectProcessMetrics(): void;
  /** Counts one rate-limit decision; `limit` is a small fixed name (`ip`, `key`…), never the key. */
  recordRateLimitDecision(limit: string, outcome: 'allowed' | 'limited' | 'store_error'): void;
  /** Reports the limiter's counter store at scrape time. */
  watchLimiterStore(read: () => LimiterStoreState): void;
  /** Reports a queue's depth and oldest pending age at scrape time; `read` should be queueDepth(db, table, { openOnly: true }). */
  watchQueue(queue: string, read: () => Promise<QueueDepthRow[]>): void;
  /** A counter of one queue's recorded attempts by outcome, for @svc/outbox's onAttemptRecorded. */
  queueAttemptRecorder(queue: string): (outcome: 'succeeded' | 'retrying' | 'gave_up') => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's Prometheus metrics (served on METRICS_PORT by runService, never on the public port). */
    metrics: ServiceMetrics;
  }
}

export interface ServiceMetricsOptions {
  service: string;
  /** Pool gauges are read from it at scrape time. */
  database?: Pick<Database, 'poolStats'>;
  clock?: () => Date;
  /** Where a failed scrape-time read is reported (the series is left out of that scrape). */
  log?: { warn(object: object, message: string): void };
}

/**
 * Everything is either counted in memory on the request's path (a counter or histogram
 * update) or read at scrape time by collect() callbacks (pool, queues, limiter store), so
 * metrics add no database or Redis work to requests.
 */
export function createServiceMetrics(options: ServiceMetricsOptions): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  const clock = options.clock ?? (() => new Date());
  const warn = (error: unknown, what: string) => options.log?.warn({ err: error }, `metrics: could not read ${what}; left out of this scrape`);
  const registers = [registry];

  // Counted in plain numbers per request (a labelled child hashes its labels on every inc), handed to prom-client when scraped.
  const decisionSeries = new Map<string, { labels: { limit: string; decision: string }; count: number }>();
  new Counter({
    name: 'rate_limit_decisions_total',
    help: 'Rate-limit decisions by limit and outcome (allowed, limited, store_error: the store failed and the request was not counted).',
    labelNames: ['limit', 'decision'] as const,
    registers,
    collect() {
      this.reset();
      for (const series of decisionSeries.values()) this.inc(series.labels, series.count);
    },
  });
  const limiterStores: Array<() => LimiterStoreState> = [];
  new Gauge({
    name: 'rate_limit_store',
    help: 'The counter store answering rate-limit checks: 1 for the one in use (redis, memory, or memory-fallback while Redis fails).',
    labelNames: ['store'] as const,
    registers,
    collect() {
      this.reset();
      for (const read of limiterStores) {
        const current = read();
        for (const store of LIMITER_STORE_STATES) this.set({ store }, store === current ? 1 : 0);
      }
    },
  });

  const queueAttempts = new Counter({
    name: 'queue_attempts_total',
    help: 'Recorded queue attempts (webhook deliveries, jobs) by outcome: succeeded, retrying (failed, will retry) or gave_up.',
    labelNames: ['queue', 'outcome'] as const,
    registers,
  });
  const queues = new Map<string, () => Promise<QueueDepthRow[]>>();
  // Both queue gauges are collected concurrently in one scrape: they share one read per queue.
  let queueReading: Promise<Map<string, QueueDepthRow[]>> | null = null;
  const readQueues = () => {
    queueReading ??= (async () => {
      const readings = new Map<string, QueueDepthRow[]>();
      await Promise.all(
        [...queues].map(async ([queue, read]) => {
          try {
            readings.set(queue, await read());
          } catch (error) {
            warn(error, `queue ${queue}`);
          }
        }),
      );
      return readings;
    })().finally(() => (queueReading = null));
    return queueReading;
  };
  new Gauge({
    name: 'queue_depth',
    help: 'Rows waiting (pending) or being worked (in_flight) in a queue.',
    labelNames: ['queue', 'status'] as const,
    registers,
    async collect() {
      const readings = await readQueues();
      this.reset();
      for (const [queue, rows] of readings) {
        for (const status of OPEN_STATUSES) {
          this.set({ queue, status }, rows.filter((row) => row.status === status).reduce((sum, row) => sum + row.count, 0));
        }
      }
    },
  });
  new Gauge({
    name: 'queue_oldest_pending_age_seconds',
    help: 'Age of the oldest pending row in a queue (0 when none is pending).',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      const readings = await readQueues();
      const now = clock().getTime();
      this.reset();
      for (const [queue, rows] of readings) {
        const oldest = Math.min(...rows.filter((row) => row.status === 'pending' && row.oldestCreatedAt).map((row) => row.oldestCreatedAt!.getTime()));
        this.set({ queue }, Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0);
      }
    },
  });

  const database = options.database;
  if (database) {
    // Read once per scrape by the first gauge, shared with the second.
    let poolReading: ReturnType<typeof database.poolStats> | null = null;
    const readPool = () => (poolReading ??= database.poolStats().finally(() => (poolReading = null)));
    new Gauge({
      name: 'db_pool_max_connections',
      help: 'Connections the database pool may open (1 on embedded PGlite).',
      registers,
      async collect() {
        this.reset();
        try {
          this.set((await readPool()).max);
        } catch (error) {
          warn(error, 'the database pool');
        }
      },
    });
    new Gauge({
      name: 'db_pool_connections',
      help: "The pool's open connections by PostgreSQL state (active, idle, idle in transaction…), the LISTEN connection and the scrape's own included.",
      labelNames: ['state'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          for (const [state, count] of Object.entries((await readPool()).connections)) this.set({ state }, count);
        } catch {
          // Reported once, by db_pool_max_connections.
        }
      },
    });
  }

  let processMetrics = false;
  return {
    registry,
    contentType: registry.contentType,
    scrape: () => registry.metrics(),
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },
    recordRateLimitDecision(limit, decision) {
      const key = `${limit} ${decision}`;
      const series = decisionSeries.get(key);
      if (series) series.count += 1;
      else decisionSeries.set(key, { labels: { limit, decision }, count: 1 });
    },
    watchLimiterStore: (read) => void limiterStores.push(read),
    watchQueue(queue, read) {
      queues.set(queue, read);
    },
    queueAttemptRecorder(queue) {
      const byOutcome = { succeeded: queueAttempts.labels(queue, 'succeeded'), retrying: queueAttempts.labels(queue, 'retrying'), gave_up: queueAttempts.labels(queue, 'gave_up') };
      // Present at 0 from the start, so rate() and alerts see the series before the first attempt.
      for (const counter of Object.values(byOutcome)) counter.inc(0);
      return (outcome) => byOutcome[outcome].inc();
    },
  };
}

/**
 * Counts every response by method, route pattern and status, and times it. The route is the
 * pattern (`/api/v1/rates/:currency`), never the URL: a label per URL would grow without bound.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  const http = requestSeriesMetrics({
    registry: metrics.registry,
    counter: { name: 'http_requests_total', help: 'HTTP responses sent, by method, route pattern and status code.' },
    histogram: {
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to sending its response, by method, route pattern and status code.',
      // prom-client's defaults stop at 10 s and start at 5 ms; most of these routes answer in 1–50 ms.
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    },
  });
  // A callback hook, not an async one: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const route = routePattern(request) ?? UNMATCHED_ROUTE;
    const series = http.series(`${request.method} ${reply.statusCode} ${route}`, () => ({ method: request.method, route, status_code: String(reply.statusCode) }));
    http.observe(series, reply.elapsedTime / 1000);
    done();
  });
}
