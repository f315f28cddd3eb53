import { createTestDatabase, itEmbeddedOnly } from '@svc/db/testing';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort, runServiceProcessToExit, startServiceProcess, type ServiceProcess } from './service-process.js';

/**
 * The process is started with METRICS_PORT and `env` (e.g. a per-minute limit of 2), so a few
 * requests to `limitedPath` include a limited one; `limit` is that path's limit name and
 * `queues` the queues the service reports.
 */
export interface ServiceProcessMetricsOptions {
  env: Record<string, string>;
  limitedPath: string;
  limit: string;
  queues: string[];
}

/**
 * The same start-up contract holds for every service, so one suite checks it: the
 * service started as an operator starts it (node + server.ts), over real HTTP, on the
 * embedded default or on PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set.
 */
/** expectedHealthStatus: what a freshly started process reports (default "ok"; fx is "degraded" until a source has data). */
export function describeServiceProcess(options: {
  service: string;
  serviceDir: string;
  healthPath: string;
  schemaName: string;
  migrationsFolder: string;
  expectedHealthStatus?: 'ok' | 'degraded';
  metrics?: ServiceProcessMetricsOptions;
}): void {
  const { service: name, serviceDir, healthPath } = options;
  const dataDir = mkdtempSync(join(tmpdir(), `svc-${name}-e2e-`));
  let env: Record<string, string | undefined> = { DATA_DIR: dataDir };
  let cleanupDatabase: () => Promise<void> = () => Promise.resolve();
  let service: ServiceProcess;
  let metricsUrl = '';

  beforeAll(async () => {
    if (process.env.DATABASE_URL) {
      const database = await createTestDatabase({ schemaName: options.schemaName, migrationsFolder: options.migrationsFolder });
      await database.database.close();
      cleanupDatabase = () => database.cleanup();
      env = { ...env, DATABASE_URL: database.url ?? undefined, SECRETS_KEY: randomBytes(32).toString('hex'), REDIS_URL: process.env.REDIS_URL, RATE_LIMIT_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:` };
    }
    // Both ports chosen here: two separate look-ups for a free port can return the same one.
    const port = await findFreePort();
    let metricsPort = await findFreePort();
    while (metricsPort === port) metricsPort = await findFreePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    service = await startServiceProcess({
      cwd: serviceDir,
      entry: 'src/server.ts',
      env: { ...env, ...options.metrics?.env, PORT: String(port), METRICS_PORT: String(metricsPort) },
      healthPath,
    });
  });

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await cleanupDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe(`${name} server process`, () => {
    it('answers its health route with the database and Redis status', async () => {
      const response = await fetch(`${service.baseUrl}${healthPath}`, { headers: { 'X-Correlation-ID': 'e2e-check-1' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-correlation-id')).toBe('e2e-check-1');
      const body = (await response.json()) as { status: string; service: string; checks: { database: { driver: string }; redis: { store: string } } };
      expect(body.status).toBe(options.expectedHealthStatus ?? 'ok');
      expect(body.service).toBe(name);
      expect(body.checks.database.driver).toBe(process.env.DATABASE_URL ? 'postgres' : 'pglite');
      expect(body.checks.redis.store).toBe(process.env.REDIS_URL ? 'redis' : 'memory');
    });

    it('serves Prometheus metrics on METRICS_PORT, and not on the public port', async () => {
      const metrics = options.metrics;
      const statuses: number[] = [];
      for (let i = 0; i < 4 && metrics; i += 1) statuses.push((await fetch(`${service.baseUrl}${metrics.limitedPath}`)).status);
      if (metrics) expect(statuses).toContain(429);
      expect((await fetch(`${service.baseUrl}/metrics`)).status).toBe(404);
      const response = await fetch(metricsUrl);
      expect(response.status).toBe(200);
      const text = await response.text();
      const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
      const labels = `service="${name}"`;
      expect(value(new RegExp(`^http_requests_total\\{method="GET",route="${healthPath}",status_code="200",${labels}\\} (\\d+)$`, 'm'))).toBeGreaterThanOrEqual(1);
      expect(text).toMatch(/^http_requests_total\{method="GET",route="<unmatched>",status_code="404",/m);
      expect(text).toMatch(new RegExp(`^http_request_duration_seconds_count\\{${labels},method="GET",route="${healthPath}",status_code="200"\\} \\d+$`, 'm'));
      expect(value(/^process_resident_memory_bytes\{[^}]*\} (\d+)$/m)).toBeGreaterThan(1_000_000);
      expect(value(/^db_pool_max_connections\{[^}]*\} (\d+)$/m)).toBe(process.env.DATABASE_URL ? 10 : 1);
      const store = process.env.REDIS_URL ? 'redis' : 'memory';
      expect(value(new RegExp(`^rate_limit_store\\{store="${store}",${labels}\\} (\\d+)$`, 'm'))).toBe(1);
      if (metrics) {
        const decisions = (decision: string) => value(new RegExp(`^rate_limit_decisions_total\\{limit="${metrics.limit}",decision="${decision}",${labels}\\} (\\d+)$`, 'm'));
        // On a shared Redis the address may have used up its minute already (an earlier run): every request is counted, not all allowed.
        expect(decisions('limited')).toBeGreaterThanOrEqual(1);
        expect((Number.isNaN(decisions('allowed')) ? 0 : decisions('allowed')) + decisions('limited')).toBe(statuses.length);
        for (const queue of metrics.queues) {
          expect(value(new RegExp(`^queue_depth\\{queue="${queue}",status="pending",${labels}\\} (\\d+)$`, 'm'))).toBeGreaterThanOrEqual(0);
          expect(value(new RegExp(`^queue_oldest_pending_age_seconds\\{queue="${queue}",${labels}\\} ([\\d.e+-]+)$`, 'm'))).toBeGreaterThanOrEqual(0);
          expect(value(new RegExp(`^queue_attempts_total\\{queue="${queue}",outcome="gave_up",${labels}\\} (\\d+)$`, 'm'))).toBe(0);
        }
      }
    });

    itEmbeddedOnly('refuses a second instance on the same embedded data directory, naming the owner pid', async () => {
      const second = await runServiceProcessToExit({ cwd: serviceDir, entry: 'src/server.ts', env: { ...env, PORT: '1' } });
      expect(second.code).toBe(1);
      expect(second.output).toContain(`in use by process ${service.child.pid}`);
      expect(second.output).toContain('DATABASE_URL');
    });

    it('exits with a readable message naming each bad variable', async () => {
      const result = await runServiceProcessToExit({ cwd: serviceDir, entry: 'src/server.ts', env: { ...env, PORT: 'eighty', REDIS_URL: 'http://x' } });
      expect(result.code).toBe(1);
      expect(result.output).toContain(`${name}: cannot start. Invalid configuration:`);
      expect(result.output).toContain('PORT:');
      expect(result.output).toContain('REDIS_URL:');
      expect(result.output).not.toMatch(/\n\s+at /); // no stack trace
    });

    it('shuts down gracefully on SIGTERM and releases the data directory', async () => {
      const code = await service.stop('SIGTERM');
      expect(code).toBe(0);
      if (!process.env.DATABASE_URL) expect(existsSync(join(dataDir, options.schemaName, 'owner.lock'))).toBe(false);
    });
  });
}
