import { createTestDatabase } from '@svc/db/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { rawExchange as exchange, type RawExchange } from './raw-exchange.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from './service-process.js';

function expectProblem(answer: RawExchange, status: number, code: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(answer.body)).toMatchObject({ status, code });
}

const SHORT_MS = 1_000;

/**
 * What every service's public listener answers before any route runs, and how it treats slow and
 * silent clients, over raw sockets against the service process (embedded, or PostgreSQL + Redis
 * when DATABASE_URL / REDIS_URL are set). Started with one-second limits so the test waits little.
 * `parametricPath` ends where a path parameter starts; `jsonPost` is a route reading a JSON body.
 */
export function describeListenerEdges(options: {
  service: string;
  serviceDir: string;
  healthPath: string;
  schemaName: string;
  migrationsFolder: string;
  parametricPath: string;
  /** The method of the parametric route (default GET). */
  parametricMethod?: string;
  jsonPost: { path: string; headers?: Record<string, string>; env?: Record<string, string> };
}): void {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-${options.service}-edge-`));
  let service: ServiceProcess;
  let port: number;
  let cleanupDatabase: () => Promise<void> = () => Promise.resolve();

  beforeAll(async () => {
    let env: Record<string, string | undefined> = { DATA_DIR: dataDir };
    if (process.env.DATABASE_URL) {
      const database = await createTestDatabase({ schemaName: options.schemaName, migrationsFolder: options.migrationsFolder });
      await database.database.close();
      cleanupDatabase = () => database.cleanup();
      env = { ...env, DATABASE_URL: database.url ?? undefined, SECRETS_KEY: randomBytes(32).toString('hex'), REDIS_URL: process.env.REDIS_URL, RATE_LIMIT_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:` };
    }
    service = await startServiceProcess({
      cwd: options.serviceDir,
      entry: 'src/server.ts',
      env: {
        ...env,
        ...options.jsonPost.env,
        HTTP_HEADERS_TIMEOUT_MS: String(SHORT_MS),
        HTTP_SILENCE_TIMEOUT_MS: String(SHORT_MS),
        HTTP_KEEP_ALIVE_TIMEOUT_MS: String(SHORT_MS),
      },
      healthPath: options.healthPath,
    });
    port = Number(new URL(service.baseUrl).port);
  }, 180_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await cleanupDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (path: string, extraHeaders = '', method = 'GET') => exchange(port, [`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extraHeaders}\r\n`]);
  const parametric = (parameter: string) => get(`${options.parametricPath}${parameter}`, 'Content-Length: 0\r\n', options.parametricMethod ?? 'GET');
  const jsonHeaders = () =>
    Object.entries({ ...options.jsonPost.headers, 'content-type': 'application/json' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');

  describe(`${options.service} listener edges`, () => {
    it('answers 414 URI_TOO_LONG as a problem for an over-long path parameter', async () => {
      expectProblem(await parametric('a'.repeat(2_000)), 414, 'URI_TOO_LONG');
    });

    it('answers 400 as a problem for a path parameter that is not valid percent-encoding', async () => {
      expectProblem(await parametric('%E0%A4%A'), 400, 'BAD_REQUEST');
    });

    it('answers 404 NOT_FOUND as a problem for an unknown route', async () => {
      expectProblem(await get('/no-such-route'), 404, 'NOT_FOUND');
    });

    it('answers 431 HEADERS_TOO_LARGE as a problem for a header block over the limit, and closes', async () => {
      const answer = await get('/', `X-Padding: ${'p'.repeat(20_000)}\r\n`);
      expectProblem(answer, 431, 'HEADERS_TOO_LARGE');
      expect(answer.headers.connection).toBe('close');
    });

    it('answers 431 as a problem for a request line longer than the header limit', async () => {
      expectProblem(await get(`/${'u'.repeat(20_000)}`), 431, 'HEADERS_TOO_LARGE');
    });

    it('answers 400 BAD_REQUEST as a problem for bytes that are not HTTP', async () => {
      expectProblem(await exchange(port, ['NOT HTTP AT ALL\r\n\r\n']), 400, 'BAD_REQUEST');
    });

    it('answers 413 PAYLOAD_TOO_LARGE as a problem for a declared body over the limit, without reading it', async () => {
      const answer = await exchange(port, [`POST ${options.jsonPost.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${jsonHeaders()}Content-Length: 50000000\r\n\r\n{`]);
      expectProblem(answer, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('answers 400 VALIDATION_ERROR as a problem for a body that is not JSON', async () => {
      const answer = await exchange(port, [`POST ${options.jsonPost.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${jsonHeaders()}Content-Length: 5\r\nConnection: close\r\n\r\n{nope`]);
      expectProblem(answer, 400, 'VALIDATION_ERROR');
    });

    it('answers 408 REQUEST_TIMEOUT as a problem when the headers never finish', async () => {
      const answer = await exchange(port, [`GET ${options.healthPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `]);
      expectProblem(answer, 408, 'REQUEST_TIMEOUT');
      // Node checks the headers deadline on a timer: the limit, plus at most one check interval.
      expect(answer.afterLastWriteMs).toBeGreaterThanOrEqual(SHORT_MS - 50);
      expect(answer.afterLastWriteMs).toBeLessThan(SHORT_MS + 2_000);
    });

    it('answers 408 REQUEST_TIMEOUT as a problem when a JSON body stops arriving, at the silence limit', async () => {
      const answer = await exchange(port, [`POST ${options.jsonPost.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${jsonHeaders()}Content-Length: 100\r\n\r\n{"a":`]);
      expectProblem(answer, 408, 'REQUEST_TIMEOUT');
      expect(answer.afterLastWriteMs).toBeGreaterThanOrEqual(SHORT_MS - 50);
      expect(answer.afterLastWriteMs).toBeLessThan(SHORT_MS + 2_000);
    });

    it('closes an idle keep-alive connection after the keep-alive limit', async () => {
      const started = Date.now();
      const socket = connect(port, '127.0.0.1');
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
      socket.on('error', () => undefined);
      socket.on('connect', () => socket.write(`GET ${options.healthPath} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
      socket.resume();
      const after = await closed;
      expect(after).toBeGreaterThanOrEqual(SHORT_MS - 50);
      expect(after).toBeLessThan(SHORT_MS + 3_000);
    });

    it('still serves its health route after all of the above', async () => {
      expect((await fetch(`${service.baseUrl}${options.healthPath}`)).status).toBe(200);
    });
  });
}
