import { randomBytes } from 'node:crypto';
import { createTestDependencies } from '@svc/service-kit/testing';
import { buildApp } from '../src/app.js';
import { loadFxConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { databaseSchema } from '../src/db/schema.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** A clock tests move by hand: no sleeping. */
export function manualClock(start: string) {
  let now = new Date(start);
  return {
    now: () => now,
    set(iso: string) {
      now = new Date(iso);
    },
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** A fresh fx app on its own database; `close()` releases everything. */
export async function buildTestApp(env: Record<string, string> = {}, options: { clock?: () => Date; rateLimitKeyPrefix?: string; sourcesEnv?: Record<string, string>; smtpCa?: string; databaseUrl?: string } = {}) {
  const dependencies = await createTestDependencies({ schemaName, migrationsFolder, schema: databaseSchema, ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}) });
  const config = loadFxConfig({ LOG_LEVEL: 'silent', FX_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
  const app = await buildApp({
    ...dependencies,
    config,
    clock: options.clock,
    env: options.sourcesEnv ?? {},
    ...(options.smtpCa ? { smtpCa: options.smtpCa } : {}),
    rateLimitKeyPrefix: options.rateLimitKeyPrefix ?? `fx-test:${randomBytes(6).toString('hex')}:`,
  });
  return {
    app,
    dependencies,
    async close() {
      await app.close();
      await dependencies.close();
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

export async function postRates(testApp: TestApp, body: Record<string, unknown>) {
  return testApp.app.inject({ method: 'POST', url: '/api/v1/admin/rates', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: body });
}
