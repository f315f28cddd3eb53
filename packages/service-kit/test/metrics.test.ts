import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBaseApp, startMetricsServer, type QueueDepthRow, type ServiceApp } from '../src/index.js';
import { createTestDependencies } from '../testing/index.js';

const migrationsFolder = fileURLToPath(new URL('./fixtures/migrations', import.meta.url));
let dependencies: Awaited<ReturnType<typeof createTestDependencies>>;
let app: ServiceApp;

/** The value of one series in Prometheus exposition text: its name and exactly these labels, in any order. */
function sample(text: string, series: string): number | undefined {
  const canonical = (line: string) => {
    const match = /^([a-z_]+)(?:\{(.*)\})?$/.exec(line);
    return match ? `${match[1]}{${(match[2] ?? '').split(/,(?=[a-z_]+=)/).sort().join(',')}}` : line;
  };
  const wanted = canonical(series);
  for (const line of text.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space > 0 && !line.startsWith('#') && canonical(line.slice(0, space)) === wanted) return Number(line.slice(space + 1));
  }
  return undefined;
}

/** Raw SQL text (service-kit has no drizzle-orm of its own), rows on either driver. */
async function query<Row>(text: string): Promise<Row[]> {
  const result: unknown = await dependencies.database.db.execute(text);
  return Array.isArray(result) ? (result as Row[]) : (result as { rows: Row[] }).rows;
}

async function buildApp(): Promise<ServiceApp> {
  const built = await createBaseApp({
    service: 'kit',
    version: '1.0.0',
    config: { LOG_LEVEL: 'silent' },
    openapi: { title: 'kit', description: 'metrics test', securitySchemes: {} },
    healthPath: '/health',
    database: dependencies.database,
    redis: dependencies.redis,
  });
  built.get('/things/:id', async (request) => ({ id: (request.params as { id: string }).id }));
  built.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { ok: true };
  });
  return built;
}

beforeAll(async () => {
  dependencies = await createTestDependencies({ schemaName: 'kittest', migrationsFolder });
  app = await buildApp();
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await dependencies?.close();
});

describe('service metrics', () => {
  it('counts and times responses by method, route pattern and status, never by raw URL', async () => {
    for (const id of ['a', 'b', 'c']) expect((await app.inject({ url: `/things/${id}` })).statusCode).toBe(200);
    expect((await app.inject({ url: '/slow' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/no/such/path?x=1' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);

    const text = await app.metrics.scrape();
    expect(sample(text, 'http_requests_total{method="GET",route="/things/:id",status_code="200",service="kit"}')).toBe(3);
    expect(sample(text, 'http_requests_total{method="GET",route="<unmatched>",status_code="404",service="kit"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="GET",route="/health",status_code="200",service="kit"}')).toBe(1);
    expect(text).not.toContain('/things/a');
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/things/:id",status_code="200",service="kit"}')).toBe(3);
    // The 20 ms route is over the 10 ms bucket and within 10 s.
    expect(sample(text, 'http_request_duration_seconds_bucket{le="0.01",method="GET",route="/slow",status_code="200",service="kit"}')).toBe(0);
    expect(sample(text, 'http_request_duration_seconds_bucket{le="10",method="GET",route="/slow",status_code="200",service="kit"}')).toBe(1);
  });

  it('reports the database pool from the database itself', async () => {
    const text = await app.metrics.scrape();
    if (dependencies.database.driver === 'pglite') {
      expect(sample(text, 'db_pool_max_connections{service="kit"}')).toBe(1);
      expect(sample(text, 'db_pool_connections{state="embedded",service="kit"}')).toBe(1);
    } else {
      expect(sample(text, 'db_pool_max_connections{service="kit"}')).toBeGreaterThan(1);
      // The scrape's own query is running on one of the pool's connections.
      expect(sample(text, 'db_pool_connections{state="active",service="kit"}')).toBeGreaterThanOrEqual(1);
    }
  });

  it('reports queue depth and oldest pending age at scrape time, and attempts by outcome', async () => {
    await query(`insert into kittest.work (kind, status, created_at) values
      ('a', 'pending', '2026-03-01T11:58:00Z'), ('b', 'pending', '2026-03-01T11:59:30Z'),
      ('a', 'in_flight', '2026-03-01T11:50:00Z'), ('a', 'succeeded', '2026-03-01T10:00:00Z')`);
    app.metrics.watchQueue('work', async () => {
      const rows = await query<{ kind: string; status: string; count: number; oldest: string | Date | null }>(
        `select kind, status, count(*)::int as count, min(created_at) as oldest from kittest.work where status in ('pending', 'in_flight') group by kind, status`,
      );
      return rows.map((row): QueueDepthRow => ({ kind: row.kind, status: row.status, count: Number(row.count), oldestCreatedAt: row.oldest === null ? null : new Date(row.oldest) }));
    });
    app.metrics.watchQueue('broken', () => Promise.reject(new Error('relation does not exist')));
    const record = app.metrics.queueAttemptRecorder('work');
    record('succeeded');
    record('retrying');
    record('succeeded');

    const text = await app.metrics.scrape();
    expect(sample(text, 'queue_depth{queue="work",status="pending",service="kit"}')).toBe(2);
    expect(sample(text, 'queue_depth{queue="work",status="in_flight",service="kit"}')).toBe(1);
    // The oldest pending row, not the older in-flight one; the clock is the real one here.
    const age = sample(text, 'queue_oldest_pending_age_seconds{queue="work",service="kit"}')!;
    expect(age).toBeGreaterThanOrEqual((Date.now() - Date.parse('2026-03-01T11:58:00.000Z')) / 1000 - 60);
    // A failing reader leaves its queue out of the scrape instead of failing the scrape.
    expect(text).not.toContain('queue="broken"');
    expect(sample(text, 'queue_attempts_total{queue="work",outcome="succeeded",service="kit"}')).toBe(2);
    expect(sample(text, 'queue_attempts_total{queue="work",outcome="retrying",service="kit"}')).toBe(1);
    expect(sample(text, 'queue_attempts_total{queue="work",outcome="gave_up",service="kit"}')).toBe(0);
  });

  it('counts rate-limit decisions and reports the limiter store in use', async () => {
    let store: 'redis' | 'memory-fallback' = 'redis';
    app.metrics.watchLimiterStore(() => store);
    app.metrics.recordRateLimitDecision('ip', 'allowed');
    app.metrics.recordRateLimitDecision('ip', 'limited');
    app.metrics.recordRateLimitDecision('ip', 'allowed');
    let text = await app.metrics.scrape();
    expect(sample(text, 'rate_limit_decisions_total{limit="ip",decision="allowed",service="kit"}')).toBe(2);
    expect(sample(text, 'rate_limit_decisions_total{limit="ip",decision="limited",service="kit"}')).toBe(1);
    expect(sample(text, 'rate_limit_store{store="redis",service="kit"}')).toBe(1);
    store = 'memory-fallback';
    text = await app.metrics.scrape();
    expect(sample(text, 'rate_limit_store{store="redis",service="kit"}')).toBe(0);
    expect(sample(text, 'rate_limit_store{store="memory-fallback",service="kit"}')).toBe(1);
  });

  it('keeps each app in its own registry', async () => {
    const other = await buildApp();
    try {
      await other.inject({ url: '/things/z' });
      const text = await other.metrics.scrape();
      expect(sample(text, 'http_requests_total{method="GET",route="/things/:id",status_code="200",service="kit"}')).toBe(1);
      expect(text).not.toContain('rate_limit_decisions_total{');
    } finally {
      await other.close();
    }
  });

  it('serves /metrics over HTTP on its own listener, with process metrics, and nothing else there', async () => {
    app.metrics.collectProcessMetrics();
    app.metrics.collectProcessMetrics(); // twice is harmless: registering a metric twice would throw
    const server = await startMetricsServer({ metrics: app.metrics, port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${server.address.port}`;
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      const text = await response.text();
      expect(text).toContain('# TYPE http_requests_total counter');
      expect(text).toContain('process_resident_memory_bytes{service="kit"}');
      expect(text).toContain('nodejs_eventloop_lag_seconds{service="kit"}');
      expect((await fetch(`${base}/health`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
      // And the public app has no /metrics.
      expect((await app.inject({ url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await server.close();
    }
  });
});
