import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaseCountCache } from '../src/domain/cases/case-count-cache.js';
import { createCase, partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';
import type { VerificationCasePage } from '@svc/identity-client/types';

/** The route's threshold: above it the count is taken once per minute per filter. */
const COUNT_EXACT_UP_TO = 10_000;

describe('the case list: cursor paging beside page, and an honest totalCount', () => {
  let test: TestApp;
  const clock = manualClock();
  let acme: Partner;
  let other: Partner;

  const list = async (partner: Partner, query: string) => test.app.inject({ method: 'GET', url: `${BASE}/verifications?${query}`, headers: partner.headers });
  const listPage = async (partner: Partner, query: string) => {
    const response = await list(partner, query);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<VerificationCasePage>();
  };

  beforeAll(async () => {
    // The clock stands still: every case has the same createdAt, so only the id orders them.
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' }, { clock: clock.now });
    acme = await partnerWithToken(test, 'Acme');
    other = await partnerWithToken(test, 'Other');
    for (let index = 0; index < 7; index++) expect((await createCase(test, acme)).statusCode).toBe(201);
    clock.advance(1500);
    for (let index = 0; index < 4; index++) expect((await createCase(test, acme, { documentType: 'SyrianNationalId' })).statusCode).toBe(201);
    expect((await createCase(test, other)).statusCode).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await test?.close();
  });

  it('walks the same cases with a cursor as with page numbers, ties on createdAt included, and ends with a null nextCursor', async () => {
    const byPage: string[] = [];
    for (let page = 1; page <= 4; page++) byPage.push(...(await listPage(acme, `pageSize=3&page=${page}`)).items.map((item) => item.id));
    expect(byPage).toHaveLength(11);
    expect(new Set(byPage).size).toBe(11);

    const byCursor: string[] = [];
    const pages: number[] = [];
    let answer = await listPage(acme, 'pageSize=3');
    for (;;) {
      byCursor.push(...answer.items.map((item) => item.id));
      pages.push(answer.page);
      expect(answer).toMatchObject({ pageSize: 3, totalCount: 11, totalPages: 4 });
      if (answer.nextCursor === null) break;
      answer = await listPage(acme, `pageSize=3&cursor=${encodeURIComponent(answer.nextCursor)}`);
    }
    expect(byCursor).toEqual(byPage);
    expect(pages).toEqual([1, 2, 3, 4]);
    // A full last page has no next page either: one row more is read to know.
    expect((await listPage(acme, 'pageSize=11')).nextCursor).toBeNull();
    expect((await listPage(acme, 'pageSize=10')).nextCursor).toEqual(expect.any(String));
  });

  it('keeps the status filter across cursor pages, and counts only what matches', async () => {
    const first = await listPage(acme, 'status=SessionIssued&pageSize=5');
    expect(first).toMatchObject({ totalCount: 11, page: 1 });
    const second = await listPage(acme, `status=SessionIssued&pageSize=5&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.page).toBe(2);
    expect([...first.items, ...second.items].every((item) => item.status === 'SessionIssued')).toBe(true);
    const none = await listPage(acme, 'status=Approved');
    expect(none).toMatchObject({ items: [], totalCount: 0, totalPages: 0, nextCursor: null });
  });

  it('refuses a cursor with page, from other filters or another tenant, or not issued at all, with 400 problems naming the parameter', async () => {
    const { nextCursor } = await listPage(acme, 'pageSize=2');
    const cursor = encodeURIComponent(nextCursor!);
    const forged = Buffer.from(JSON.stringify({ v: 1, t: '1', i: '00000000-0000-4000-8000-000000000000', p: 2, f: 'x' })).toString('base64url');
    const cases: [Partner, string, string][] = [
      [acme, `pageSize=2&page=2&cursor=${cursor}`, 'page'],
      [acme, `pageSize=2&status=Approved&cursor=${cursor}`, 'cursor'],
      [acme, `pageSize=2&search=abc&cursor=${cursor}`, 'cursor'],
      [other, `pageSize=2&cursor=${cursor}`, 'cursor'],
      [acme, 'cursor=not-a-cursor', 'cursor'],
      [acme, `cursor=${forged}`, 'cursor'],
      [acme, `cursor=${Buffer.from('{"v":1,"t":"-5","i":"x","p":0}').toString('base64url')}`, 'cursor'],
      [acme, `cursor=${'a'.repeat(513)}`, 'cursor'],
      [acme, 'cursor=', 'cursor'],
    ];
    for (const [partner, query, path] of cases) {
      const response = await list(partner, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json(), query).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ path: expect.stringContaining(path) })] });
    }
  });

  it('counts exactly on every request up to the threshold, and says when it counted', async () => {
    const before = await listPage(other, '');
    expect(before).toMatchObject({ totalCount: 1, totalCountAsOf: clock.now().toISOString() });
    clock.advance(1000);
    await createCase(test, other);
    expect(await listPage(other, '')).toMatchObject({ totalCount: 2, totalCountAsOf: clock.now().toISOString() });
  });

  it('counts a large tenant once per minute per filter, and says how old the count is', async () => {
    const big = await partnerWithToken(test, 'Big');
    // Bulk rows in SQL, as a tenant with years of cases would have them; the API would take minutes.
    await test.db.execute(sql`
      insert into identity.verification_cases (tenant_id, document_type, status, idempotency_key, request_fingerprint, created_at, updated_at)
      select ${big.tenantId}::uuid, 'SyrianPassport', 'Expired', 'bulk-' || n, 'bulk', ${clock.now().toISOString()}::timestamptz - n * interval '1 second', ${clock.now().toISOString()}::timestamptz
      from generate_series(1, ${COUNT_EXACT_UP_TO}) as n`);
    await createCase(test, big);
    const countedAt = clock.now().toISOString();
    expect(await listPage(big, 'pageSize=1')).toMatchObject({ totalCount: COUNT_EXACT_UP_TO + 1, totalPages: COUNT_EXACT_UP_TO + 1, totalCountAsOf: countedAt });

    clock.advance(30_000);
    await createCase(test, big);
    // Within the minute: the same count, dated when it was taken; the new case is listed all the same.
    const cached = await listPage(big, 'pageSize=1');
    expect(cached).toMatchObject({ totalCount: COUNT_EXACT_UP_TO + 1, totalCountAsOf: countedAt });
    expect(cached.items[0]!.createdAt).toBe(clock.now().toISOString());
    // Another filter is another count, taken now.
    expect(await listPage(big, 'status=SessionIssued')).toMatchObject({ totalCount: 2, totalCountAsOf: clock.now().toISOString() });

    clock.advance(30_001);
    expect(await listPage(big, 'pageSize=1')).toMatchObject({ totalCount: COUNT_EXACT_UP_TO + 2, totalCountAsOf: clock.now().toISOString() });
  }, 180_000);
});

describe('the count cache', () => {
  it('shares one full count between concurrent requests for a filter, and forgets the oldest filter first', async () => {
    const clock = manualClock(new Date('2026-11-26T04:00:00.000Z'));
    const counts = createCaseCountCache({ exactUpTo: 10, ttlMs: 60_000, maxEntries: 2, clock: clock.now });
    let fullCounts = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const countAll = async () => {
      fullCounts += 1;
      await gate;
      return 500;
    };
    const pending = Array.from({ length: 5 }, () => counts.count('a', async (limit) => limit, countAll));
    // Every request has taken its bounded count and joined the one full count.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const answers = await Promise.all(pending);
    expect(fullCounts).toBe(1);
    expect(answers.map((answer) => answer.value)).toEqual([500, 500, 500, 500, 500]);

    await counts.count('b', async (limit) => limit, async () => 600);
    await counts.count('c', async (limit) => limit, async () => 700);
    // 'a' was forgotten (two entries at most): counted again.
    await counts.count('a', async (limit) => limit, countAll);
    expect(fullCounts).toBe(2);
    // A failed count is not remembered: the next request counts again.
    await expect(counts.count('d', async (limit) => limit, async () => Promise.reject(new Error('statement timeout')))).rejects.toThrow('statement timeout');
    expect(await counts.count('d', async (limit) => limit, async () => 800)).toMatchObject({ value: 800 });
  });
});
