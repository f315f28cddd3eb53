import { randomUUID } from 'node:crypto';
import { desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewDecisions, staffUsers, verificationCases } from '../src/db/schema.js';
import { CASE_STATUSES, type CaseStatus } from '../src/domain/cases/case-states.js';
import { encodeCsvField } from '@svc/csv';
import { EXPORT_COLUMNS, readExportRows } from '../src/domain/reports/csv-export.js';
import { createCase, partnerWithToken, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';

const DAY = 86_400_000;
const HEADER = `${EXPORT_COLUMNS.join(',')}\r\n`;
// Two days ahead, 09:30 UTC: inside the test certificates' validity, and a date the system clock
// does not have yet, so a file name carrying it can only come from the injected clock.
const today = new Date();
const START = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 2, 9, 30));
const ago = (ms: number) => new Date(START.getTime() - ms);
const yyyymmdd = (date: Date) => date.toISOString().slice(0, 10).replaceAll('-', '');

/** RFC 4180 records, so tests compare cells, not the encoder's own output. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    const next = text[index + 1];
    index += 1;
    if (quoted && char === '"' && next === '"') {
      field += '"';
      index += 1;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ',') {
      record.push(field);
      field = '';
    } else if (!quoted && char === '\r' && next === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 1;
    } else {
      field += char;
    }
  }
  expect(field + record.join(''), 'the last record ends with CRLF').toBe('');
  return records;
}

describe('reports', () => {
  const clock = manualClock(START);
  let test: TestApp;
  let reviewerId: string;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' }, { clock: clock.now });
    const [staff] = await test.db
      .insert(staffUsers)
      .values({ email: `reviewer-${randomUUID()}@example.com`, role: 'Reviewer', passwordHash: 'unused', createdAt: START })
      .returning({ id: staffUsers.id });
    reviewerId = staff!.id;
  });
  afterAll(() => test.close());

  interface SeedFields {
    status?: CaseStatus;
    createdAt?: Date;
    completedAt?: Date | null;
    externalReference?: string;
    compositeRiskScore?: number | null;
    decisionReason?: string | null;
    /** Adds a review_decisions row: the case was decided by a person. */
    reviewed?: boolean;
  }

  /** A case made through the API, then moved in the database to the state a test needs. */
  async function seedCase(partner: Partner, fields: SeedFields = {}): Promise<string> {
    const response = await createCase(test, partner, { documentType: 'SyrianPassport', ...(fields.externalReference !== undefined ? { externalReference: fields.externalReference } : {}) });
    expect(response.statusCode).toBe(201);
    const { caseId } = response.json<{ caseId: string }>();
    const { reviewed, externalReference: _reference, ...columns } = fields;
    if (Object.keys(columns).length > 0) await test.db.update(verificationCases).set(columns).where(eq(verificationCases.id, caseId));
    if (reviewed) {
      await test.db.insert(reviewDecisions).values({ caseId, reviewerId, decision: fields.status ?? 'Approved', reason: 'Checked by hand', decidedAt: fields.completedAt ?? START });
    }
    return caseId;
  }

  const report = (partner: Partner, name: 'summary' | 'export', query = '') =>
    test.app.inject({ method: 'GET', url: `${BASE}/reports/${name}${query ? `?${query}` : ''}`, headers: partner.headers });

  describe('summary', () => {
    it('counts every state, leaves other tenants and older cases out, and derives automationRate', async () => {
      const acme = await partnerWithToken(test, 'Acme');
      const other = await partnerWithToken(test, 'Other');
      for (const status of CASE_STATUSES) await seedCase(acme, { status, createdAt: ago(DAY) });
      // Decided: Approved ×2 (one reviewed), Rejected ×1; automated 2 of 3.
      await seedCase(acme, { status: 'Approved', createdAt: ago(2 * DAY), completedAt: ago(DAY), reviewed: true });
      // A review on a case that is not decided yet does not count.
      await seedCase(acme, { status: 'PendingManualReview', createdAt: ago(DAY), reviewed: true });
      await seedCase(acme, { status: 'Approved', createdAt: ago(31 * DAY) });
      await seedCase(other, { status: 'Approved', createdAt: ago(DAY) });

      const response = await report(acme, 'summary');
      expect(response.statusCode).toBe(200);
      const expectedByStatus = Object.fromEntries(CASE_STATUSES.map((status) => [status, 1]));
      expect(response.json()).toEqual({
        from: ago(30 * DAY).toISOString(),
        to: START.toISOString(),
        totalCases: 13,
        byStatus: { ...expectedByStatus, Approved: 2, PendingManualReview: 2 },
        automationRate: 0.6667,
      });

      // Widened to reach the 31-day-old case: 3 automated of 4 decided.
      const wide = await report(acme, 'summary', `from=${ago(40 * DAY).toISOString()}`);
      expect(wide.json()).toMatchObject({ from: ago(40 * DAY).toISOString(), totalCases: 14, byStatus: { Approved: 3 }, automationRate: 0.75 });
      const others = await report(other, 'summary');
      expect(others.json()).toMatchObject({ totalCases: 1, byStatus: { Approved: 1, Rejected: 0 }, automationRate: 1 });
    });

    it('answers all eleven states at 0 and an automationRate of 0 when nothing matches', async () => {
      const empty = await partnerWithToken(test, 'Empty');
      const body = (await report(empty, 'summary')).json<{ byStatus: Record<string, number>; totalCases: number; automationRate: number }>();
      expect(Object.keys(body.byStatus)).toEqual([...CASE_STATUSES]);
      expect(Object.values(body.byStatus).every((value) => value === 0)).toBe(true);
      expect(body).toMatchObject({ totalCases: 0, automationRate: 0 });
    });

    it('includes both ends of the window and normalises an offset to UTC', async () => {
      const edges = await partnerWithToken(test, 'Edges');
      const from = ago(10 * DAY);
      const to = ago(5 * DAY);
      for (const createdAt of [new Date(from.getTime() - 1), from, to, new Date(to.getTime() + 1)]) await seedCase(edges, { createdAt });
      const response = await report(edges, 'summary', `from=${from.toISOString()}&to=${to.toISOString()}`);
      expect(response.json()).toMatchObject({ from: from.toISOString(), to: to.toISOString(), totalCases: 2 });
      const exported = await report(edges, 'export', `from=${from.toISOString()}&to=${to.toISOString()}`);
      expect(exported.headers['x-total-count']).toBe('2');
      expect(parseCsv(exported.body)).toHaveLength(3);

      const shifted = await report(edges, 'summary', `from=2025-01-01T02:00:00%2B02:00&to=2025-01-31T00:00:00Z`);
      expect(shifted.json()).toMatchObject({ from: '2025-01-01T00:00:00.000Z', to: '2025-01-31T00:00:00.000Z', totalCases: 0 });
    });

    it('defaults from to 30 days before to, and to to now', async () => {
      const acme = await partnerWithToken(test, 'Defaults');
      const to = '2025-03-01T00:00:00.000Z';
      expect((await report(acme, 'summary', `to=${to}`)).json()).toMatchObject({ from: '2025-01-30T00:00:00.000Z', to });
      const from = ago(3 * DAY).toISOString();
      expect((await report(acme, 'summary', `from=${from}`)).json()).toMatchObject({ from, to: START.toISOString() });
    });
  });

  describe('window validation (both reports)', () => {
    let acme: Partner;
    beforeAll(async () => {
      acme = await partnerWithToken(test, 'Validation');
    });

    it.each([
      ['from after to', `from=${ago(DAY).toISOString()}&to=${ago(2 * DAY).toISOString()}`, 'query.from'],
      ['a window over 366 days', `from=${ago(366 * DAY + 1).toISOString()}&to=${START.toISOString()}`, 'query.from'],
      ['a from over 366 days before the default to', `from=${ago(400 * DAY).toISOString()}`, 'query.from'],
      ['garbage', 'from=yesterday', 'query.from'],
      ['no offset', 'to=2025-01-01T00:00:00', 'query.to'],
      ['an impossible date', 'to=2025-02-30T00:00:00Z', 'query.to'],
      ['an unknown parameter', 'form=2025-01-01T00:00:00Z', 'query.form'],
    ])('400 VALIDATION_ERROR for %s', async (_name, query, path) => {
      for (const name of ['summary', 'export'] as const) {
        const response = await report(acme, name, query);
        expect(response.statusCode, name).toBe(400);
        expect(response.json(), name).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ path })] });
      }
    });

    it('accepts a window of exactly 366 days, and from equal to to', async () => {
      for (const query of [`from=${ago(366 * DAY).toISOString()}&to=${START.toISOString()}`, `from=${START.toISOString()}&to=${START.toISOString()}`]) {
        expect((await report(acme, 'summary', query)).statusCode).toBe(200);
        expect((await report(acme, 'export', query)).statusCode).toBe(200);
      }
    });
  });

  it('needs the reports scope: a verifications-only token gets 403', async () => {
    const narrow = await partnerWithToken(test, 'Narrow', 'verifications');
    for (const name of ['summary', 'export'] as const) {
      const response = await report(narrow, name);
      expect(response.statusCode, name).toBe(403);
      expect(response.json()).toMatchObject({ code: 'FORBIDDEN', detail: expect.stringContaining('"reports"') });
    }
    const reportsOnly = await partnerWithToken(test, 'ReportsOnly', 'reports');
    expect((await report(reportsOnly, 'summary')).statusCode).toBe(200);
    expect((await report(reportsOnly, 'export')).statusCode).toBe(200);
  });

  describe('export', () => {
    it('writes the header, the columns in order, RFC 4180 quoting, ISO timestamps and empty cells for null, newest first', async () => {
      const acme = await partnerWithToken(test, 'Csv');
      const other = await partnerWithToken(test, 'CsvOther');
      const otherCase = await seedCase(other, { createdAt: ago(DAY) });
      const multiline = 'comma, "quote"\r\nnext\nline';
      const open = await seedCase(acme, { createdAt: ago(3 * DAY), externalReference: multiline });
      const decided = await seedCase(acme, {
        status: 'Approved',
        createdAt: ago(2 * DAY),
        completedAt: ago(DAY),
        externalReference: 'order-42',
        compositeRiskScore: 12.5,
        decisionReason: 'All checks passed',
      });

      const response = await report(acme, 'export');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toBe(`attachment; filename="verifications_${yyyymmdd(START)}.csv"`);
      expect(yyyymmdd(START)).not.toBe(yyyymmdd(new Date()));
      expect(response.headers['x-total-count']).toBe('2');
      expect(response.headers['x-truncated']).toBe('false');
      expect(response.body.startsWith(HEADER)).toBe(true);
      expect(response.body).toContain(`,"comma, ""quote""\r\nnext\nline",`);
      expect(response.body).not.toContain(otherCase);
      expect(parseCsv(response.body)).toEqual([
        [...EXPORT_COLUMNS],
        [decided, 'Approved', 'SyrianPassport', 'order-42', ago(2 * DAY).toISOString(), ago(DAY).toISOString(), '12.5', 'All checks passed'],
        [open, 'SessionIssued', 'SyrianPassport', multiline, ago(3 * DAY).toISOString(), '', '', ''],
      ]);
      expect(response.body.endsWith(`${ago(3 * DAY).toISOString()},,,\r\n`)).toBe(true);
    });

    it('neutralises cells a spreadsheet would evaluate', async () => {
      const acme = await partnerWithToken(test, 'Injection');
      const references = ["=cmd|' /C calc'!A0", '+1', '-1', '@x', '\tTAB', '\rCR', 'plain-1'];
      for (const [index, externalReference] of references.entries()) await seedCase(acme, { externalReference, createdAt: ago((index + 1) * 1000) });
      await seedCase(acme, { createdAt: ago(DAY), decisionReason: '=HYPERLINK("http://evil.example","x")', compositeRiskScore: 0 });

      const response = await report(acme, 'export');
      const records = parseCsv(response.body).slice(1);
      expect(records.map((record) => record[3])).toEqual(["'=cmd|' /C calc'!A0", "'+1", "'-1", "'@x", "'\tTAB", "'\rCR", 'plain-1', '']);
      expect(records[7]!.slice(6)).toEqual(['0', `'=HYPERLINK("http://evil.example","x")`]);
      expect(response.body).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")"\r\n`);
      expect(response.body).toContain(`,'=cmd|' /C calc'!A0,`);
    });

    it('stops at the newest 5,000 and says so: X-Total-Count and X-Truncated', async () => {
      const bulk = await partnerWithToken(test, 'Bulk');
      // Triples share a timestamp and neighbours are a microsecond apart, so paging that lost the
      // microseconds (a JS Date) or the id tie-break would skip or repeat rows.
      await test.db.execute(sql`
        insert into ${verificationCases} (tenant_id, external_reference, document_type, status, idempotency_key, request_fingerprint, created_at, updated_at)
        select ${bulk.tenantId}::uuid, 'bulk-' || n, 'SyrianNationalId', 'Approved', 'bulk-' || n, 'bulk',
          ${ago(DAY).toISOString()}::timestamptz + (n / 3) * interval '1 microsecond', ${ago(DAY).toISOString()}::timestamptz
        from generate_series(1, 5003) as n`);
      const response = await report(bulk, 'export');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-total-count']).toBe('5003');
      expect(response.headers['x-truncated']).toBe('true');
      const records = parseCsv(response.body);
      expect(records[0]).toEqual([...EXPORT_COLUMNS]);
      const expected = await test.db
        .select({ id: verificationCases.id })
        .from(verificationCases)
        .where(eq(verificationCases.tenantId, bulk.tenantId))
        .orderBy(desc(verificationCases.createdAt), desc(verificationCases.id))
        .limit(5000);
      expect(records.slice(1).map((record) => record[0])).toEqual(expected.map((row) => row.id));
      expect(['bulk-5001', 'bulk-5002', 'bulk-5003']).toContain(records[1]![3]);
      const references = new Set(records.map((record) => record[3]));
      expect(references.has('bulk-1') || references.has('bulk-2')).toBe(false);

      const narrow = await report(bulk, 'export', `from=${START.toISOString()}`);
      expect(narrow.headers).toMatchObject({ 'x-total-count': '0', 'x-truncated': 'false' });
      expect(narrow.body).toBe(HEADER);
    });

    it('reads in keyset batches and never yields an empty one', async () => {
      const acme = await partnerWithToken(test, 'Batches');
      for (let index = 0; index < 6; index++) await seedCase(acme, { createdAt: ago(index * 1000) });
      const window = { from: ago(DAY), to: START };
      const sizes = async (options: { limit?: number; batchSize: number }) => {
        const seen: number[] = [];
        for await (const batch of readExportRows(test.db, acme.tenantId, window, options)) seen.push(batch.length);
        return seen;
      };
      expect(await sizes({ batchSize: 4 })).toEqual([4, 2]);
      expect(await sizes({ batchSize: 3 })).toEqual([3, 3]);
      expect(await sizes({ batchSize: 4, limit: 5 })).toEqual([4, 1]);
      const ids: string[] = [];
      for await (const batch of readExportRows(test.db, acme.tenantId, window, { batchSize: 1 })) ids.push(...batch.map((row) => row.id));
      const all = await test.db.select({ id: verificationCases.id }).from(verificationCases).where(eq(verificationCases.tenantId, acme.tenantId)).orderBy(desc(verificationCases.createdAt));
      expect(ids).toEqual(all.map((row) => row.id));
    });
  });

  it('encodes fields: numbers as they are, text neutralised then quoted', () => {
    expect(encodeCsvField(null)).toBe('');
    expect(encodeCsvField(-1)).toBe('-1');
    expect(encodeCsvField('a"b')).toBe('"a""b"');
    expect(encodeCsvField('\rX')).toBe(`"'\rX"`);
    expect(encodeCsvField('\tX')).toBe(`'\tX`);
    expect(encodeCsvField('1-2')).toBe('1-2');
    expect(encodeCsvField('')).toBe('');
  });
});
