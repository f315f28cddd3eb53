import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawUpload, startCaptureService, uploadBody, waitFor, type CaptureService, type RawAnswer } from './fixtures/capture-service.js';

const SILENCE_MS = 1_000;
const PER_IP = 8;

/** The start of an upload (its field and 1 KB of the file) with the Content-Length of the whole: the client then goes quiet. */
function stalledUpload(port: number, captureToken: string, timeoutMs = 20_000): Promise<RawAnswer> {
  const { payload, contentType } = uploadBody(100_000);
  const sent = payload.subarray(0, payload.indexOf('clip.mp4') + 1_100);
  return rawUpload(port, { captureToken, contentType, payload: sent, declaredLength: payload.length, timeoutMs });
}

const problemOf = (answer: RawAnswer) => JSON.parse(answer.body) as { status: number; code: string };

describe('200 stalled uploads from one client, against a service process', () => {
  let edge: CaptureService;
  let captureToken: string;

  beforeAll(async () => {
    edge = await startCaptureService({ HTTP_SILENCE_TIMEOUT_MS: String(SILENCE_MS), CAPTURE_UPLOADS_PER_IP: String(PER_IP) });
    captureToken = await edge.newCaptureToken();
  }, 180_000);
  afterAll(() => edge?.close());

  it(`refuses all beyond ${PER_IP} with 429 and Retry-After, cuts the others at the silence limit with 408, and gives back every descriptor`, async () => {
    // Warm up (first upload, first queries) so the baseline is the idle service's, not a cold one's.
    const { payload, contentType } = uploadBody(10_000);
    expect((await rawUpload(edge.port, { captureToken, contentType, payload })).status).toBe(201);
    const baseline = edge.resources();

    const answers = await Promise.all(Array.from({ length: 200 }, () => stalledUpload(edge.port, captureToken)));
    const refused = answers.filter((answer) => answer.status === 429);
    const cut = answers.filter((answer) => answer.status === 408);
    expect(refused).toHaveLength(200 - PER_IP);
    expect(cut).toHaveLength(PER_IP);
    for (const answer of refused) {
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(problemOf(answer)).toMatchObject({ status: 429, code: 'TOO_MANY_UPLOADS' });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    for (const answer of cut) {
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(problemOf(answer)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
      expect(answer.headers.connection).toBe('close');
      // Cut by the silence limit, not before it (and not minutes later).
      expect(answer.afterLastWriteMs).toBeGreaterThanOrEqual(SILENCE_MS - 50);
      expect(answer.afterLastWriteMs).toBeLessThan(SILENCE_MS + 4_000);
    }
    await waitFor('the spool to be empty', () => edge.spoolFiles().length === 0, 5_000);
    // Every client connection closed and every spool file's descriptor freed. (The database pool may have grown.)
    await waitFor('the client connections and file descriptors to return to the baseline', () => {
      const now = edge.resources();
      return now.clientConnections <= baseline.clientConnections && now.otherThanSockets <= baseline.otherThanSockets;
    }, 10_000);
    const after = edge.resources();
    console.info(`stalled uploads: descriptors ${baseline.descriptors} -> ${after.descriptors}, client connections ${baseline.clientConnections} -> ${after.clientConnections}, RSS ${(baseline.rssBytes / 1_048_576).toFixed(0)} -> ${(after.rssBytes / 1_048_576).toFixed(0)} MB`);
    // Memory: the process may keep what it grew, but 200 refused or cut uploads must not hold on to it.
    expect(edge.resources().rssBytes).toBeLessThan(baseline.rssBytes + 64 * 1024 * 1024);

    // Slots are given back: the next upload goes through.
    expect((await rawUpload(edge.port, { captureToken, contentType, payload })).status).toBe(201);
  }, 180_000);
});

describe('SIGTERM while uploads are stalled, against a service process', () => {
  let edge: CaptureService;

  beforeAll(async () => {
    // The default silence limit (30 s): only the shutdown can end these uploads within the test.
    edge = await startCaptureService({ SHUTDOWN_GRACE_MS: '1000' });
  }, 180_000);
  afterAll(() => edge?.close());

  it('answers each stalled upload 503 SHUTTING_DOWN after the grace, empties the spool and exits 0 within 5 s', async () => {
    const captureToken = await edge.newCaptureToken();
    const uploads = Array.from({ length: 6 }, () => stalledUpload(edge.port, captureToken, 30_000));
    await waitFor('six spool files', () => edge.spoolFiles().length === 6, 10_000);

    const started = Date.now();
    const code = await edge.service.stop('SIGTERM');
    const exitMs = Date.now() - started;
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(5_000);
    expect(edge.spoolFiles()).toEqual([]);
    for (const answer of await Promise.all(uploads)) {
      expect(answer.status, answer.body).toBe(503);
      expect(problemOf(answer)).toMatchObject({ status: 503, code: 'SHUTTING_DOWN' });
    }
  }, 180_000);
});
