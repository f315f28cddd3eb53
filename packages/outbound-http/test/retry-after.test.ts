import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedDispatcher, parseRetryAfter, postOnce } from '../src/index.js';

const NOW = Date.parse('2026-10-21T07:28:00.000Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds as milliseconds', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfter('86400', NOW)).toBe(86_400_000);
  });

  it('reads an HTTP date in each of its three forms as the time left until it', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:29:30 GMT', NOW)).toBe(90_000); // IMF-fixdate
    expect(parseRetryAfter('Wednesday, 21-Oct-26 07:29:30 GMT', NOW)).toBe(90_000); // obsolete RFC 850
    expect(parseRetryAfter('Wed Oct 21 07:29:30 2026', NOW)).toBe(90_000); // asctime, always GMT
  });

  it('reads an asctime date as GMT whatever the local time zone', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York'; // Node applies a changed TZ at once
    try {
      expect(parseRetryAfter('Wed Oct 21 07:29:30 2026', NOW)).toBe(90_000);
      expect(parseRetryAfter('Thu Oct  1 07:29:30 2026', Date.parse('2026-10-01T07:29:00Z'))).toBe(30_000);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('reads a date in the past as no wait at all', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:27:59 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:00 GMT', NOW)).toBe(0);
  });

  it('defaults now to the current time', () => {
    const inOneMinute = new Date(Date.now() + 60_000).toUTCString(); // whole seconds: up to 1 s less
    const delay = parseRetryAfter(inOneMinute)!;
    expect(delay).toBeGreaterThan(58_000);
    expect(delay).toBeLessThanOrEqual(60_000);
  });

  it('returns undefined for an absent or unreadable value', () => {
    for (const value of [undefined, '', '   ', 'soon', '5 seconds', '120s', '1.5', '-5', '2030-01-01', 'Jan 1 2030', 'a 1', '12:00', '1e3', '0x10']) {
      expect({ value, parsed: parseRetryAfter(value, NOW) }).toEqual({ value, parsed: undefined });
    }
  });

  it('reads the first of repeated headers', () => {
    expect(parseRetryAfter(['7', '9'], NOW)).toBe(7000);
    expect(parseRetryAfter(['Wed, 21 Oct 2026 07:28:10 GMT', '1'], NOW)).toBe(10_000);
    expect(parseRetryAfter([], NOW)).toBeUndefined();
  });
});

// A real receiver on loopback answering by path.
let server: Server;
let port: number;
const received: { path: string; userAgent: string | undefined }[] = [];
const endlessClosed: Promise<void>[] = [];

function answer(request: IncomingMessage, response: ServerResponse): void {
  const path = request.url ?? '';
  received.push({ path, userAgent: request.headers['user-agent'] });
  const status = Number(/^\/(\d{3})/.exec(path)?.[1] ?? 204);
  const retryAfter = new URL(path, 'http://x').searchParams.get('retry-after');
  if (path === '/big') {
    const body = Buffer.alloc(1024 * 1024, 'x');
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
    response.end(body);
    return;
  }
  if (path === '/endless') {
    // Streams forever: a client that read the whole answer would wait for its timeout.
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const timer = setInterval(() => response.write(chunk), 5);
    endlessClosed.push(new Promise((resolve) => response.on('close', () => {
      clearInterval(timer);
      resolve();
    })));
    return;
  }
  response.writeHead(status, retryAfter === null ? {} : { 'retry-after': retryAfter });
  response.end();
}

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const relaxed = { allowPrivateTargets: true };
const dispatcher = await createGuardedDispatcher(relaxed);

function post(path: string, options: { userAgent?: string; timeoutMs?: number } = {}) {
  return postOnce({ url: `http://127.0.0.1:${port}${path}`, body: '{}', headers: { 'content-type': 'application/json' }, dispatcher, policy: relaxed, timeoutMs: options.timeoutMs ?? 2000, ...(options.userAgent ? { userAgent: options.userAgent } : {}) });
}

describe('postOnce and Retry-After', () => {
  it('returns retryAfterMs from a 429 with delay-seconds', async () => {
    const result = await post('/429?retry-after=7');
    expect(result).toMatchObject({ status: 429, retryAfterMs: 7000 });
    expect(result.error).toBeUndefined();
  });

  it('returns retryAfterMs from a 503 with an HTTP date', async () => {
    const until = new Date(Date.now() + 30_000).toUTCString();
    const result = await post(`/503?retry-after=${encodeURIComponent(until)}`);
    expect(result.status).toBe(503);
    expect(result.retryAfterMs).toBeGreaterThan(27_000);
    expect(result.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('ignores Retry-After on other statuses, and a missing or unreadable one', async () => {
    for (const path of ['/500?retry-after=7', '/200?retry-after=7', '/301?retry-after=7', '/429', '/503?retry-after=later']) {
      const result = await post(path);
      expect(result.status).toBe(Number(path.slice(1, 4)));
      expect({ path, hasRetryAfter: 'retryAfterMs' in result }).toEqual({ path, hasRetryAfter: false });
    }
  });
});

describe('postOnce and the receiver', () => {
  it('sends the userAgent option, and the default without it', async () => {
    await post('/204?ua=custom', { userAgent: 'partner-services-identity-webhooks/1' });
    await post('/204?ua=default');
    expect(received.find((request) => request.path === '/204?ua=custom')?.userAgent).toBe('partner-services-identity-webhooks/1');
    expect(received.find((request) => request.path === '/204?ua=default')?.userAgent).toBe('partner-services-webhooks/1');
  });

  it('does not read a 1 MB answer, nor wait for an endless one', async () => {
    const big = await post('/big', { timeoutMs: 5000 });
    expect(big).toMatchObject({ status: 200 });
    expect(big.error).toBeUndefined();

    const started = performance.now();
    const endless = await post('/endless', { timeoutMs: 5000 });
    expect(endless).toMatchObject({ status: 200 });
    expect(endless.error).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2000);
    // The client hung up instead of reading on.
    await Promise.all(endlessClosed);

    // The dispatcher still works after dropping those connections.
    expect((await post('/204')).status).toBe(204);
  });
});
