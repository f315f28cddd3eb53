import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '@svc/service-kit';
import type { Redis } from 'ioredis';
import { createTestDependencies, findFreePort } from '@svc/service-kit/testing';
import { ADMIN_TOKEN } from './helpers.js';
import { buildApp } from '../src/app.js';
import { loadFxConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { cryptoPrices, databaseSchema } from '../src/db/schema.js';

// Two instances behind a load balancer share a Redis of this file's own (a real redis-server on a
// free port), which the test stops and starts: a write on one instance while Redis is away must
// answer 201, and the other instance must not go on serving what it had cached.

async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout?.on('data', () => {
      if (output.includes('Ready to accept connections')) resolve();
    });
  });
  child.removeAllListeners('exit');
  return child;
}

async function stopRedisServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}

/** Polls `read` until `done` holds for its answer (every 20 ms); the answer, or the last one after 30 s. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
}

type FxApp = Awaited<ReturnType<typeof buildApp>>;

describe('response cache while Redis is away', () => {
  let port: number;
  let redisServer: ChildProcess;
  let dependencies: Awaited<ReturnType<typeof createTestDependencies<typeof databaseSchema>>>;
  const clients: Redis[] = [];
  let first: FxApp;
  let second: FxApp;

  /** An fx instance on the shared database (PostgreSQL URL, or the same in-process PGlite handle) and this file's Redis. */
  async function instance(): Promise<FxApp> {
    const redis = await connectRedis(`redis://127.0.0.1:${port}`);
    clients.push(redis);
    return buildApp({
      ...dependencies,
      redis,
      config: loadFxConfig({ LOG_LEVEL: 'silent', FX_ADMIN_TOKEN: ADMIN_TOKEN }),
      rateLimitKeyPrefix: `fx-test:${randomBytes(6).toString('hex')}:`,
    });
  }

  beforeAll(async () => {
    port = await findFreePort();
    redisServer = await startRedisServer(port);
    dependencies = await createTestDependencies({ schemaName, migrationsFolder, schema: databaseSchema });
    first = await instance();
    second = await instance();
  }, 120_000);

  afterAll(async () => {
    await second?.close();
    await first?.close();
    for (const redis of clients) redis.disconnect();
    await dependencies?.close();
    if (redisServer) await stopRedisServer(redisServer);
  });

  const symbols = async (app: FxApp) => (await app.inject({ url: '/api/v1/crypto/latest?lang=en' })).json<{ prices: { symbol: string }[] }>().prices.map((price) => price.symbol);
  const postCrypto = (symbol: string, name: string) =>
    first.inject({ method: 'POST', url: '/api/v1/admin/crypto', headers: { 'X-Admin-Token': ADMIN_TOKEN }, payload: { prices: [{ symbol, name, priceUsd: 100 }] } });

  it('accepts a write while Redis is down, the other instance serves it at once, and caching resumes when Redis is back', async () => {
    // Cached on the second instance while Redis is up.
    expect(await symbols(second)).toEqual([]);

    await stopRedisServer(redisServer);
    const posted = await postCrypto('BTC', 'Bitcoin');
    expect(posted.statusCode).toBe(201);
    // Its invalidation could not be published; the second instance must not answer from its cache.
    expect(await until(() => symbols(second), (list) => list.includes('BTC'))).toContain('BTC');
    expect(await symbols(second)).toContain('BTC');

    redisServer = await startRedisServer(port);
    // Back on Redis, the second instance caches again once it has resubscribed: a row written
    // behind the service's back (no invalidation) stays unseen there…
    const cachingAgain = await until(
      async () => {
        await symbols(second);
        const symbol = `Z${randomBytes(3).toString('hex').toUpperCase()}`;
        await dependencies.database.db.insert(cryptoPrices).values({ symbol, name: 'Written directly', priceUsd: '1', observedAt: new Date() });
        return !(await symbols(second)).includes(symbol);
      },
      (cached) => cached,
    );
    expect(cachingAgain).toBe(true);
    // …and a write through the first instance reaches it through pub/sub again.
    expect((await postCrypto('ETH', 'Ethereum')).statusCode).toBe(201);
    expect(await until(() => symbols(second), (list) => list.includes('ETH'))).toContain('ETH');
  }, 120_000);
});
