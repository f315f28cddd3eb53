import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp } from './helpers.js';
import { describeNeeding } from '@svc/db/testing';

// Two instances behind a load balancer share Redis: a write on one must not leave the other serving its cached body.
describeNeeding('REDIS_URL')('response cache across instances', () => {
  it('invalidates the other instance through Redis pub/sub', async () => {
    const first = await buildTestApp();
    // The second instance reads the same database (PostgreSQL URL, or the same in-process PGlite handle).
    const { buildApp } = await import('../src/app.js');
    const { loadFxConfig } = await import('../src/config.js');
    const { connectRedis } = await import('@svc/service-kit');
    const redis = await connectRedis(process.env.REDIS_URL!);
    const second = await buildApp({
      ...first.dependencies,
      redis,
      config: loadFxConfig({ LOG_LEVEL: 'silent', FX_ADMIN_TOKEN: ADMIN_TOKEN }),
      rateLimitKeyPrefix: `fx-test:${randomBytes(6).toString('hex')}:`,
    });
    try {
      const before = await second.inject({ url: '/api/v1/crypto/latest?lang=en' });
      expect(before.json()).toMatchObject({ prices: [] });
      const posted = await first.app.inject({
        method: 'POST',
        url: '/api/v1/admin/crypto',
        headers: { 'X-Admin-Token': ADMIN_TOKEN },
        payload: { prices: [{ symbol: 'BTC', name: 'Bitcoin', priceUsd: 91000 }] },
      });
      expect(posted.statusCode).toBe(201);
      let symbols: string[] = [];
      for (let attempt = 0; attempt < 50 && symbols.length === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const after = await second.inject({ url: '/api/v1/crypto/latest?lang=en' });
        symbols = after.json<{ prices: { symbol: string }[] }>().prices.map((price) => price.symbol);
      }
      expect(symbols).toEqual(['BTC']);
    } finally {
      await second.close();
      await redis.quit();
      await first.close();
    }
  });
});
