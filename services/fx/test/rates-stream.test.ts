import { connect } from 'node:net';
import { createServiceDependencies } from '@svc/service-kit';
import { itNeeding } from '@svc/db/testing';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFxConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { ADMIN_TOKEN } from './helpers.js';
import { createFxStore, eventData, openStream, postAdmin, startFx, type FxStore, type OpenStream, type SseEvent } from './stream-helpers.js';

interface RateEntry {
  currency: string;
  mid: number;
  buy: number;
  sell: number;
}
interface RatesBody {
  disclaimer: string;
  timestampUtc: string;
  cbsRates: RateEntry[];
  marketRates: RateEntry[];
  effectiveRates: RateEntry[];
}

const isRates = (event: SseEvent) => event.event === 'rates';
const withoutTime = ({ timestampUtc: _ignored, ...rest }: RatesBody) => rest;

/** The current USD market mid, nudged by `step` per cent, so each post is a real, accepted change. */
async function postUsd(baseUrl: string, mid: number) {
  const response = await postAdmin(baseUrl, '/api/v1/admin/rates', { source: 'MARKET', rates: [{ currency: 'USD', buy: mid - 1, sell: mid + 1 }] });
  expect(response.status).toBe(201);
}

describe('GET /api/v1/rates/stream over real HTTP', () => {
  let store: FxStore;
  let fx: ServiceProcess;
  const streams: OpenStream[] = [];
  let usdMid = 0;

  async function open(path?: string, headers?: Record<string, string>) {
    const stream = await openStream(fx.baseUrl, path, headers);
    streams.push(stream);
    return stream;
  }

  beforeAll(async () => {
    store = await createFxStore();
    fx = await startFx(store);
    // On PostgreSQL nothing is seeded: start from a known USD rate either way.
    const created = await postAdmin(fx.baseUrl, '/api/v1/admin/rates', { source: 'MARKET', force: true, rates: [{ currency: 'USD', buy: 12_900, sell: 13_100 }] });
    expect(created.status).toBe(201);
    usdMid = 13_000;
  }, 90_000);

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await fx?.stop();
    await store?.cleanup();
  });

  it('opens with retry and a snapshot equal to /rates/latest, then pushes only the changed entries', async () => {
    const stream = await open('/api/v1/rates/stream?lang=en');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-cache, no-transform');
    const snapshot = await stream.waitFor((event) => event.event === 'snapshot');
    expect(stream.events[0]?.retry).toBe(3000);
    expect(snapshot.id).toMatch(/^\d+$/);
    const latest = (await (await fetch(`${fx.baseUrl}/api/v1/rates/latest?lang=en`)).json()) as RatesBody;
    expect(withoutTime(eventData<RatesBody>(snapshot))).toEqual(withoutTime(latest));

    usdMid += 20;
    const posted = Date.now();
    await postUsd(fx.baseUrl, usdMid);
    const change = await stream.waitFor(isRates);
    expect(Date.now() - posted).toBeLessThan(2000);
    expect(Number(change.id)).toBeGreaterThan(Number(snapshot.id));
    const body = eventData<RatesBody>(change);
    expect(body.disclaimer).toBe(latest.disclaimer);
    expect(body.cbsRates).toEqual([]);
    expect(body.marketRates.map((entry) => [entry.currency, entry.mid])).toEqual([['USD', usdMid]]);
    expect(body.effectiveRates.map((entry) => [entry.currency, entry.mid])).toEqual([['USD', usdMid]]);
    // The same entry /rates/latest now serves.
    const after = (await (await fetch(`${fx.baseUrl}/api/v1/rates/latest?lang=en&currencies=USD`)).json()) as RatesBody;
    expect(body.marketRates).toEqual(after.marketRates);
  });

  it('filters by currencies and sources, and sends crypto in its endpoint shape', async () => {
    const eurOnly = await open('/api/v1/rates/stream?currencies=EUR&sources=MARKET');
    const cryptoOnly = await open('/api/v1/rates/stream?sources=crypto&lang=en');
    const eurSnapshot = eventData<RatesBody>(await eurOnly.waitFor((event) => event.event === 'snapshot'));
    expect(eurSnapshot.marketRates.every((entry) => entry.currency === 'EUR')).toBe(true);
    await cryptoOnly.waitFor((event) => event.event === 'crypto');
    usdMid += 10;
    await postUsd(fx.baseUrl, usdMid);
    const crypto = await postAdmin(fx.baseUrl, '/api/v1/admin/crypto', { prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 91_234.5 }] });
    expect(crypto.status).toBe(201);
    const pushed = await cryptoOnly.waitFor((event) => event.event === 'crypto' && eventData<{ prices: { symbol: string }[] }>(event).prices.length === 1);
    expect(eventData<{ prices: { symbol: string; priceUsd: number }[] }>(pushed).prices).toMatchObject([{ symbol: 'BTC', priceUsd: 91_234.5 }]);
    // A USD change is not for either of them: neither gets a rates event.
    expect(cryptoOnly.events.filter(isRates)).toEqual([]);
    expect(eurOnly.events.filter(isRates)).toEqual([]);
  });

  it('resumes with Last-Event-ID: the missed changes in order, no snapshot', async () => {
    const first = await open();
    const snapshot = await first.waitFor((event) => event.event === 'snapshot');
    first.close();
    const mids = [usdMid + 5, usdMid + 7];
    for (const mid of mids) await postUsd(fx.baseUrl, mid);
    usdMid = mids[1] ?? usdMid;
    const resumed = await open('/api/v1/rates/stream', { 'last-event-id': snapshot.id ?? '' });
    await resumed.waitFor((event) => isRates(event) && eventData<RatesBody>(event).marketRates[0]?.mid === usdMid);
    const received = resumed.events.filter((event) => event.event !== undefined);
    expect(received.some((event) => event.event === 'snapshot')).toBe(false);
    expect(received.map((event) => eventData<RatesBody>(event).marketRates[0]?.mid)).toEqual(mids);
    const ids = received.map((event) => Number(event.id));
    expect(ids[0]).toBeGreaterThan(Number(snapshot.id));
    expect(ids[1]).toBeGreaterThan(ids[0] ?? Infinity);
  });

  it('answers an unknown or garbled Last-Event-ID with a fresh snapshot', async () => {
    for (const lastEventId of ['99999999', 'abc']) {
      const stream = await open('/api/v1/rates/stream', { 'last-event-id': lastEventId });
      const first = await stream.waitFor((event) => event.event !== undefined);
      expect(first.event).toBe('snapshot');
      stream.close();
    }
  });

  it('refuses bad parameters with a problem before any stream opens', async () => {
    for (const query of ['sources=CBS,SILVER', 'currencies=XXX', 'lang=xx', 'extra=1']) {
      const response = await fetch(`${fx.baseUrl}/api/v1/rates/stream?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(((await response.json()) as { code: string }).code).toBeTruthy();
    }
  });

  it('counts opening a stream as one request, and holds a key to its plan allowance', async () => {
    const one = await open();
    const two = await open();
    const remaining = (stream: OpenStream) => Number(stream.headers['x-rate-limit-remaining']);
    expect(remaining(two)).toBe(remaining(one) - 1);

    const created = await postAdmin(fx.baseUrl, '/api/v1/admin/clients', { name: 'streams', plan: 'Free' });
    const keys = (await created.json()) as { publicKey: string; privateKey: string };
    const keyHeaders = { 'x-api-key': keys.publicKey, 'x-api-secret': keys.privateKey };
    const held = [await open(undefined, keyHeaders), await open(undefined, keyHeaders)];
    expect(held.map((stream) => stream.status)).toEqual([200, 200]);
    const third = await open(undefined, keyHeaders);
    expect(third.status).toBe(429);
    expect(third.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(third.body)).toMatchObject({ code: 'TOO_MANY_STREAMS', limit: 2 });
    held[0]?.close();
    // The slot comes back once the server has seen the close.
    await expect.poll(async () => {
      const retry = await open(undefined, keyHeaders);
      retry.close();
      return retry.status;
    }, { timeout: 10_000, interval: 100 }).toBe(200);
    one.close();
    two.close();
  });

  it('allows at most 5 streams per anonymous IP', async () => {
    for (const stream of streams) stream.close();
    // Earlier tests' streams close asynchronously on the server: wait until 5 open again.
    const five: OpenStream[] = [];
    await expect.poll(async () => {
      const stream = await open();
      if (stream.status === 200) five.push(stream);
      return five.length;
    }, { timeout: 10_000, interval: 100 }).toBe(5);
    const sixth = await open();
    expect(sixth.status).toBe(429);
    expect(JSON.parse(sixth.body)).toMatchObject({ code: 'TOO_MANY_STREAMS', limit: 5 });
    for (const stream of five) stream.close();
  });

  it('drops a consumer that stops reading once more than 1 MB waits for it', async () => {
    for (const stream of streams) stream.close();
    const port = Number(new URL(fx.baseUrl).port);
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = 0;
    let ended = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('end', () => (ended = true));
    socket.on('close', () => (ended = true));
    socket.on('error', () => (ended = true));
    socket.write(`GET /api/v1/rates/stream?sources=crypto HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`);
    await expect.poll(() => received, { timeout: 10_000 }).toBeGreaterThan(0);
    socket.pause();
    const head = received;
    // 200 long-named prices make each event about 30 kB. Loopback kernel buffers take a few MB
    // before the server's own buffer grows, so post until the server says it dropped the stream.
    const prices = Array.from({ length: 200 }, (_, index) => ({ symbol: `C${index}`, name: `Coin ${index} ${'x'.repeat(90)}`, priceUsd: 1 + index }));
    const dropped = () => /dropping a stream that does not read its events/.test(fx.output());
    // Four posts at a time: on PostgreSQL they overlap, which keeps the test short on a busy machine.
    for (let round = 0; round < 400 && !dropped(); round += 4) {
      const responses = await Promise.all(
        [0, 1, 2, 3].map((offset) => postAdmin(fx.baseUrl, '/api/v1/admin/crypto', { prices: prices.map((price) => ({ ...price, priceUsd: price.priceUsd + round + offset })) })),
      );
      expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201]);
    }
    await expect.poll(dropped, { timeout: 10_000 }).toBe(true);
    socket.resume();
    // Reading again, it gets what the kernel still held, then the end: a healthy stream never ends.
    await expect.poll(() => ended, { timeout: 20_000 }).toBe(true);
    expect(received).toBeGreaterThan(head + 1024 * 1024);
  }, 480_000);
});

describe('stream resume limits and shutdown', () => {
  it('sends a fresh snapshot for an id older than the kept changes, and ends streams on SIGTERM with a retry hint', async () => {
    const store = await createFxStore();
    try {
      let fx = await startFx(store);
      await postUsdChange(fx, 13_000, true);
      const stream = await openStream(fx.baseUrl);
      const snapshot = await stream.waitFor((event) => event.event === 'snapshot');
      stream.close();
      await postUsdChange(fx, 13_010);
      await postUsdChange(fx, 13_020);
      await fx.stop();
      // What the pruner does once the retention has passed: the oldest changes, the first missed one among them, are gone.
      const dependencies = await createServiceDependencies({ config: loadFxConfig({ ...store.env, LOG_LEVEL: 'silent' }), schemaName, migrationsFolder });
      try {
        await dependencies.database.rows(sql`delete from fx.stream_events where id <= (select min(id) from fx.stream_events where id > ${Number(snapshot.id)})`);
      } finally {
        await dependencies.close();
      }
      fx = await startFx(store);
      const resumed = await openStream(fx.baseUrl, '/api/v1/rates/stream', { 'last-event-id': snapshot.id ?? '' });
      const first = await resumed.waitFor((event) => event.event !== undefined);
      expect(first.event).toBe('snapshot');
      expect(eventData<RatesBody>(first).marketRates.find((entry) => entry.currency === 'USD')?.mid).toBe(13_020);

      const stoppedAt = Date.now();
      expect(await fx.stop('SIGTERM')).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(8_000);
      await resumed.ended;
      const last = resumed.events[resumed.events.length - 1];
      expect(last?.retry).toBeGreaterThanOrEqual(3000);
      expect(last?.retry).toBeLessThan(6000);
    } finally {
      await store.cleanup();
    }
  }, 120_000);

  itNeeding('DATABASE_URL')('pushes a change written on instance A to streams on instance B within a second', async () => {
    const store = await createFxStore();
    const [a, b] = [await startFx(store), await startFx(store)];
    try {
      await postUsdChange(a, 13_000, true);
      const stream = await openStream(b.baseUrl, '/api/v1/rates/stream?sources=MARKET');
      await stream.waitFor((event) => event.event === 'snapshot');
      const posted = Date.now();
      await postUsdChange(a, 13_050);
      const change = await stream.waitFor(isRates, 5_000);
      expect(Date.now() - posted).toBeLessThan(1000);
      expect(eventData<RatesBody>(change).marketRates[0]?.mid).toBe(13_050);
      stream.close();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await store.cleanup();
    }
  }, 120_000);
});

async function postUsdChange(fx: ServiceProcess, mid: number, force = false) {
  const response = await fetch(`${fx.baseUrl}/api/v1/admin/rates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': ADMIN_TOKEN },
    body: JSON.stringify({ source: 'MARKET', force, rates: [{ currency: 'USD', buy: mid - 1, sell: mid + 1 }] }),
  });
  expect(response.status).toBe(201);
}
