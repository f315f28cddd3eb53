import { describe, expect, it } from 'vitest';
import { connectRedis, pingRedis, redactUrl } from '../src/index.js';
import { itNeeding } from '@svc/db/testing';

describe('connectRedis', () => {
  it('fails fast with a message naming REDIS_URL when nothing listens', async () => {
    await expect(connectRedis('redis://:hunter2@127.0.0.1:1', { connectTimeoutMs: 500 })).rejects.toThrow(/Cannot reach Redis at REDIS_URL \(redis:\/\/:\*\*\*@127\.0\.0\.1:1\)/);
  });

  itNeeding('REDIS_URL')('connects to the real Redis, pings, and reports false once closed', async () => {
    const redis = await connectRedis(process.env.REDIS_URL!);
    expect(await pingRedis(redis)).toBe(true);
    await redis.quit();
    expect(await pingRedis(redis)).toBe(false);
  });

  it('redacts passwords from URLs', () => {
    expect(redactUrl('redis://user:secret@host:6379/0')).toBe('redis://user:***@host:6379/0');
    expect(redactUrl('not a url')).toBe('(unparseable URL)');
  });
});
