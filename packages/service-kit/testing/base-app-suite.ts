import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceDependencies } from '@svc/service-kit';
import { itNeeding } from '@svc/db/testing';

interface TestApp {
  app: FastifyInstance;
  dependencies: ServiceDependencies<Record<string, unknown>>;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** What every service app answers the same way (see createBaseApp), checked per service over app.inject(). */
export function describeBaseApp(options: {
  service: string;
  healthPath: string;
  buildTestApp: () => Promise<TestApp>;
  /** What the service's health extension adds to `checks` on a fresh app. */
  extraChecks?: Record<string, unknown>;
}): void {
  let testApp: TestApp;
  beforeEach(async () => {
    testApp = await options.buildTestApp();
  });
  afterEach(async () => {
    await testApp.close();
  });

  describe(`${options.service} base app`, () => {
    it('reports health with the database and Redis status', async () => {
      const response = await testApp.app.inject({ method: 'GET', url: options.healthPath });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({
        status: 'ok',
        service: options.service,
        version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
        uptimeSeconds: expect.any(Number),
        checks: {
          database: { status: 'ok', driver: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
          redis: process.env.REDIS_URL ? { status: 'ok', store: 'redis' } : { status: 'not_configured', store: 'memory' },
          ...options.extraChecks,
        },
      });
    });

    it('answers 503 "down" when the database is gone', async () => {
      await testApp.dependencies.database.close();
      const response = await testApp.app.inject({ method: 'GET', url: options.healthPath });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ status: 'down', checks: { database: { status: 'down' } } });
    });

    itNeeding('REDIS_URL')('answers 200 "degraded" when Redis is lost', async () => {
      testApp.dependencies.redis?.disconnect();
      const response = await testApp.app.inject({ method: 'GET', url: options.healthPath });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'degraded', checks: { database: { status: 'ok' }, redis: { status: 'down', store: 'redis' } } });
    });

    it('generates a correlation id when none is sent, echoes a sane one, and replaces an unsafe one', async () => {
      const generated = await testApp.app.inject({ method: 'GET', url: options.healthPath });
      expect(generated.headers['x-correlation-id']).toMatch(UUID);
      const echoed = await testApp.app.inject({ method: 'GET', url: options.healthPath, headers: { 'X-Correlation-ID': 'partner-req-42' } });
      expect(echoed.headers['x-correlation-id']).toBe('partner-req-42');
      const unsafe = await testApp.app.inject({ method: 'GET', url: options.healthPath, headers: { 'X-Correlation-ID': 'x'.repeat(129) } });
      expect(unsafe.headers['x-correlation-id']).toMatch(UUID);
    });

    it('answers unknown routes with a problem+json 404 carrying the correlation id', async () => {
      const response = await testApp.app.inject({ method: 'GET', url: '/no/such/route?x=1', headers: { 'X-Correlation-ID': 'trace-404' } });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['x-correlation-id']).toBe('trace-404');
      expect(response.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', instance: '/no/such/route', correlationId: 'trace-404' });
    });

    it('refuses a health check with a query parameter (400, problem+json), as its document says', async () => {
      const response = await testApp.app.inject({ method: 'GET', url: `${options.healthPath}?verbose=1` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    });

    it('serves the OpenAPI document generated from the route schemas at /docs', async () => {
      const json = await testApp.app.inject({ method: 'GET', url: '/docs/json' });
      expect(json.statusCode).toBe(200);
      const document = json.json<{ openapi: string; paths: Record<string, { get?: { responses: Record<string, unknown> } }> }>();
      expect(document.openapi).toBe('3.1.0');
      expect(Object.keys(document.paths[options.healthPath]?.get?.responses ?? {})).toEqual(['200', '400', '503']);
      const ui = await testApp.app.inject({ method: 'GET', url: '/docs/' });
      expect(ui.statusCode).toBe(200);
      expect(ui.headers['content-type']).toMatch(/^text\/html/);
    });
  });
}
