import { selectRows } from '@svc/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useDeveloperApp } from './developer-helpers.js';
import type { TestApp } from './helpers.js';

interface Usage {
  monthToDate: number;
  monthlyQuota: number | null;
  resetUtc: string;
  days: { date: string; requests: number; limited: number }[];
}

describe('GET /api/v1/developer/usage', () => {
  const started = useDeveloperApp();
  const verifiedAccount = () => started.developer('usage');
  const usage = async (cookie: string, query = '') => started.app().app.inject({ method: 'GET', url: `/api/v1/developer/usage${query}`, headers: { cookie } });

  it("counts the account's requests as the limiter does: month to date equals the quota headers, per day with 429s", async () => {
    const { cookie, keys } = await verifiedAccount();
    const before = (await usage(cookie)).json<Usage>();
    const today = new Date().toISOString().slice(0, 10);
    expect(before.monthToDate).toBe(0);
    expect(before.monthlyQuota).toBe(300);
    expect(before.days).toHaveLength(30);
    expect(before.days.at(-1)).toEqual({ date: today, requests: 0, limited: 0 });
    const now = new Date();
    expect(before.resetUtc).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());

    // 61 data requests: the 61st passes the 60 a minute and gets 429, yet the month window counts it.
    const headers = { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey };
    const statuses: number[] = [];
    let last: Awaited<ReturnType<TestApp['app']['inject']>> | undefined;
    for (let i = 0; i < 61; i++) {
      last = await started.app().app.inject({ method: 'GET', url: '/api/v1/pricing', headers });
      statuses.push(last.statusCode);
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
    // /client/* shares the minute window (so this is the second 429) but not the monthly quota: the day counts it, the month does not.
    expect((await started.app().app.inject({ method: 'GET', url: '/api/v1/client/me', headers })).statusCode).toBe(429);

    // Counted in memory: far fewer rows were written than requests were made (one flush per interval).
    const [stored] = await selectRows<{ n: number }>(started.app().dependencies.database.db, sql`select coalesce(sum(requests), 0)::int as n from fx.client_daily_usage where client_id = ${keys.id}`);
    expect(Number(stored?.n)).toBeLessThan(62);

    const after = (await usage(cookie)).json<Usage>();
    const quotaUsed = Number(last?.headers['x-quota-limit']) - Number(last?.headers['x-quota-remaining']);
    expect(after.monthToDate).toBe(quotaUsed);
    expect(after.monthToDate).toBe(61);
    expect(after.days.at(-1)).toEqual({ date: today, requests: 62, limited: 2 });
    expect((await usage(cookie, '?days=7')).json<Usage>().days).toHaveLength(7);
  });

  it('needs a session and answers a bad days with a 400 problem', async () => {
    expect((await started.app().app.inject({ method: 'GET', url: '/api/v1/developer/usage' })).statusCode).toBe(401);
    const { cookie } = await verifiedAccount();
    for (const query of ['?days=0', '?days=91', '?days=abc', '?days=30&x=1']) {
      const response = await usage(cookie, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
  });
});
