import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedDispatcher, postOnce } from '../src/index.js';

// A real receiver on loopback: what an attacker would point a webhook at to reach internal services.
let server: Server;
let port: number;
const received: { path: string; body: string; headers: Record<string, unknown> }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body, headers: request.headers });
      if (request.url === '/slow') return setTimeout(() => response.end('late'), 2000);
      if (request.url === '/redirect') {
        response.writeHead(302, { location: '/elsewhere' });
        return response.end();
      }
      response.writeHead(request.url === '/fail' ? 500 : 204);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const strict = { allowPrivateTargets: false };
const relaxed = { allowPrivateTargets: true };

describe('postOnce through the guarded dispatcher', () => {
  it('refuses an IP-literal private target without connecting', async () => {
    const before = received.length;
    const result = await postOnce({ url: `http://127.0.0.1:${port}/hook`, body: '{}', headers: {}, dispatcher: await createGuardedDispatcher(strict), policy: strict, timeoutMs: 1000 });
    expect(result).toEqual({ status: 0, durationMs: 0, error: 'refused to connect to 127.0.0.1 (127.0.0.1): loopback' });
    expect(received.length).toBe(before);
  });

  it('refuses a host name that resolves to loopback at connect time (DNS rebinding)', async () => {
    const before = received.length;
    const result = await postOnce({ url: `http://localhost:${port}/hook`, body: '{}', headers: {}, dispatcher: await createGuardedDispatcher(strict), policy: strict, timeoutMs: 2000 });
    expect(result.status).toBe(0);
    expect(result.error).toMatch(/^refused to connect to localhost \((127\.0\.0\.1|::1)\): loopback$/);
    expect(received.length).toBe(before);
  });

  it('delivers the exact body and headers when private targets are allowed', async () => {
    const result = await postOnce({
      url: `http://127.0.0.1:${port}/hook`,
      body: '{"event":"rate_alert"}',
      headers: { 'content-type': 'application/json', 'x-service-event': 'rate_alert' },
      dispatcher: await createGuardedDispatcher(relaxed),
      policy: relaxed,
      timeoutMs: 2000,
    });
    expect(result.status).toBe(204);
    expect(result.error).toBeUndefined();
    const last = received.at(-1);
    expect(last).toMatchObject({ path: '/hook', body: '{"event":"rate_alert"}' });
    expect(last?.headers['x-service-event']).toBe('rate_alert');
    expect(last?.headers['user-agent']).toBe('partner-services-webhooks/1');
  });

  it('reports non-2xx statuses, does not follow redirects, and times out with status 0', async () => {
    const dispatcher = await createGuardedDispatcher(relaxed);
    const common = { body: '{}', headers: {}, dispatcher, policy: relaxed };
    expect((await postOnce({ ...common, url: `http://127.0.0.1:${port}/fail`, timeoutMs: 2000 })).status).toBe(500);
    expect((await postOnce({ ...common, url: `http://127.0.0.1:${port}/redirect`, timeoutMs: 2000 })).status).toBe(302);
    expect(received.some((request) => request.path === '/elsewhere')).toBe(false);
    const slow = await postOnce({ ...common, url: `http://127.0.0.1:${port}/slow`, timeoutMs: 300 });
    expect(slow).toMatchObject({ status: 0, error: 'timed out after 300 ms' });
    expect(slow.durationMs).toBeGreaterThanOrEqual(290);
    expect(slow.durationMs).toBeLessThan(1500);
  });

  it('reports a refused connection as status 0 with the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await postOnce({ url: `http://127.0.0.1:${closedPort}/`, body: '{}', headers: {}, dispatcher: await createGuardedDispatcher(relaxed), policy: relaxed, timeoutMs: 2000 });
    expect(result.status).toBe(0);
    expect(result.error).toContain('ECONNREFUSED');
  });
});
