import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedDispatcher, getOnce } from '../src/index.js';

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url === '/redirect') return response.writeHead(302, { location: '/prices' }).end();
    if (request.url === '/big') return response.writeHead(200).end('x'.repeat(5000));
    if (request.url === '/limited') return response.writeHead(429, { 'retry-after': '120' }).end('slow down');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ userAgent: request.headers['user-agent'], key: request.headers['x-key'] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const relaxed = { allowPrivateTargets: true };
const strict = { allowPrivateTargets: false };
const get = async (path: string, policy = relaxed, maxBytes = 1024) =>
  getOnce({ url: `${base}${path}`, headers: { 'x-key': 'k' }, dispatcher: await createGuardedDispatcher(policy), policy, timeoutMs: 2000, userAgent: 'test-agent/1', maxBytes });

describe('getOnce through the guarded dispatcher', () => {
  it('returns the body, sending the given User-Agent and headers', async () => {
    const result = await get('/prices');
    expect(result).toMatchObject({ status: 200, contentType: 'application/json' });
    expect(JSON.parse(result.body ?? '')).toEqual({ userAgent: 'test-agent/1', key: 'k' });
  });

  it('never follows a redirect, and stops reading past maxBytes', async () => {
    expect(await get('/redirect')).toMatchObject({ status: 302 });
    expect(hits.filter((path) => path === '/prices')).toHaveLength(1);
    expect(await get('/big')).toMatchObject({ status: 0, error: 'answer larger than 1024 bytes' });
  });

  it("reports a 429's Retry-After", async () => {
    expect(await get('/limited')).toMatchObject({ status: 429, retryAfterMs: 120_000 });
  });

  it('refuses http:// and private addresses unless the policy allows them, without connecting', async () => {
    const before = hits.length;
    expect((await get('/prices', strict)).error).toMatch(/^refused http:/);
    const literal = await getOnce({ url: 'https://127.0.0.1:1/x', headers: {}, dispatcher: await createGuardedDispatcher(strict), policy: strict, timeoutMs: 1000, userAgent: 'a', maxBytes: 10 });
    expect(literal.error).toMatch(/refused to connect to 127\.0\.0\.1/);
    expect(hits.length).toBe(before);
  });
});
