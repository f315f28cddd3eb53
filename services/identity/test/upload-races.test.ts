import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { eq } from 'drizzle-orm';
import { describeNeeding } from '@svc/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidence } from '../src/db/schema.js';
import { CAPTURE, jpegBytes, multipartBody, partnerWithToken, startedCase, uploadEvidence, type Partner } from './case-helpers.js';
import { waitFor } from './fixtures/capture-service.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';

/** Far past the default session lifetime (SESSION_TTL_SECONDS, two hours), which the app here keeps. */
const PAST_THE_SESSION_MS = 24 * 60 * 60 * 1000;

/**
 * An upload is checked when its file starts and recorded when its bytes are stored: what
 * happened to the case in between decides. Each body is held open half-way, the case changed,
 * then the body finished.
 */

describe('an upload whose case changes while its bytes arrive', () => {
  let test: TestApp;
  let acme: Partner;
  const clock = manualClock();

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' }, { clock: clock.now });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test?.close());

  const spooled = (dir: string) => {
    try {
      return readdirSync(dir).length;
    } catch {
      return 0;
    }
  };

  /** Starts an upload, waits until its file is being spooled, runs `meanwhile`, then sends the rest. */
  async function uploadAround(captureToken: string, meanwhile: () => Promise<void>) {
    const { payload, contentType } = multipartBody([
      { name: 'evidenceType', value: 'DocumentFront' },
      { name: 'file', fileName: 'front.jpg', contentType: 'image/jpeg', bytes: jpegBytes(256 * 1024) },
    ]);
    const body = new PassThrough();
    const spool = join(test.evidenceDir, 'spool');
    const answer = test.app.inject({ method: 'POST', url: `${CAPTURE}/evidence`, headers: { authorization: `Bearer ${captureToken}`, 'content-type': contentType }, payload: body }).then((response) => response);
    body.write(payload.subarray(0, payload.length - 1024));
    await waitFor('the upload to reach the spool', () => spooled(spool) > 0);
    await meanwhile();
    body.end(payload.subarray(payload.length - 1024));
    const response = await answer;
    await waitFor('the spool to be empty', () => spooled(spool) === 0);
    return response;
  }

  it('a case cancelled meanwhile: 410 CASE_CLOSED, no evidence row, and the stored bytes removed', async () => {
    const started = await startedCase(test, acme);
    const response = await uploadAround(started.captureToken, async () => {
      const cancel = await test.app.inject({ method: 'POST', url: `${BASE}/verifications/${started.caseId}/cancel`, headers: acme.headers, payload: { reason: 'customer left' } });
      expect(cancel.statusCode).toBe(204);
    });
    expect(response.statusCode, response.body).toBe(410);
    expect(response.json()).toMatchObject({ code: 'CASE_CLOSED', currentStatus: 'Cancelled' });
    expect(await test.db.select().from(evidence).where(eq(evidence.caseId, started.caseId))).toEqual([]);
    expect(spooled(join(test.evidenceDir, 'objects', acme.tenantId, started.caseId))).toBe(0);
  });

  it('a session expired meanwhile: 410 SESSION_EXPIRED and nothing recorded; an upload in time is recorded', async () => {
    const started = await startedCase(test, acme);
    const inTime = await uploadAround(started.captureToken, async () => undefined);
    expect(inTime.statusCode, inTime.body).toBe(201);
    const response = await uploadAround(started.captureToken, async () => clock.advance(PAST_THE_SESSION_MS));
    expect(response.statusCode, response.body).toBe(410);
    expect(response.json()).toMatchObject({ code: 'SESSION_EXPIRED' });
    const rows = await test.db.select().from(evidence).where(eq(evidence.caseId, started.caseId));
    expect(rows.map((row) => [row.id, row.replacedAt])).toEqual([[inTime.json<{ id: string }>().id, null]]);
  });
});

/** Row locks only mean something with several connections: this runs on real PostgreSQL. */
describeNeeding('DATABASE_URL')('uploads of one type racing on one case (PostgreSQL)', () => {
  let test: TestApp;
  let acme: Partner;

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', CAPTURE_UPLOADS_PER_IP: '100' });
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test?.close());

  it('thirty document photos at once: all stored, exactly one current, the others marked replaced', async () => {
    const started = await startedCase(test, acme);
    const responses = await Promise.all(Array.from({ length: 30 }, () => uploadEvidence(test, started.captureToken, 'DocumentFront', jpegBytes(), 'front.jpg', 'image/jpeg')));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(30).fill(201));
    const rows = await test.db.select().from(evidence).where(eq(evidence.caseId, started.caseId));
    expect(rows).toHaveLength(30);
    expect(rows.filter((row) => row.replacedAt === null)).toHaveLength(1);
  });
});
