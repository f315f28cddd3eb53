import { createTestDatabase, itEmbeddedOnly } from '@svc/db/testing';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServiceProcessToExit, startServiceProcess, type ServiceProcess } from './service-process.js';

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
}): void {
  const { service: name, serviceDir, healthPath } = options;
  const dataDir = mkdtempSync(join(tmpdir(), `svc-${name}-e2e-`));
  let env: Record<string, string | undefined> = { DATA_DIR: dataDir };
  let cleanupDatabase: () => Promise<void> = () => Promise.resolve();
  let service: ServiceProcess;

  beforeAll(async () => {
    if (process.env.DATABASE_URL) {
      const database = await createTestDatabase({ schemaName: options.schemaName, migrationsFolder: options.migrationsFolder });
      await database.database.close();
      cleanupDatabase = () => database.cleanup();
      env = { ...env, DATABASE_URL: database.url ?? undefined, SECRETS_KEY: randomBytes(32).toString('hex'), REDIS_URL: process.env.REDIS_URL };
    }
    service = await startServiceProcess({ cwd: serviceDir, entry: 'src/server.ts', env, healthPath });
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
