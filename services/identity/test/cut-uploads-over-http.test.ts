import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawUpload, startCaptureService, uploadBody, waitFor, type CaptureService } from './fixtures/capture-service.js';

/** Problem answers of a real socket upload: the status, a problem+json body with a code, the connection closed. */
function expectProblem(answer: { status: number; headers: Record<string, string>; body: string }, status: number, code: string) {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(answer.body)).toMatchObject({ status, code });
}

describe('cut multipart uploads over a real socket, against a service process', () => {
  let edge: CaptureService;
  let captureToken: string;

  beforeAll(async () => {
    edge = await startCaptureService();
    captureToken = await edge.newCaptureToken();
  }, 180_000);
  afterAll(() => edge?.close());

  // File sizes around the parser's 16 KB buffering (the old hang below it, the old 500 above), up to 20 MB.
  const FILE_SIZES = [1, 1_000, 16_000, 16_500, 100_000, 1_000_000, 20_000_000];

  for (const fileBytes of FILE_SIZES) {
    it(`a ${fileBytes}-byte file whose closing boundary is missing (correct Content-Length) answers 400 INCOMPLETE_BODY within 1 s and leaves no spool file`, async () => {
      const { payload, contentType } = uploadBody(fileBytes);
      const cut = payload.subarray(0, payload.length - 40);
      const answer = await rawUpload(edge.port, { captureToken, contentType, payload: cut, timeoutMs: 20_000 });
      expectProblem(answer, 400, 'INCOMPLETE_BODY');
      expect(answer.afterLastWriteMs).toBeLessThan(1_000);
      await waitFor('the spool to be empty', () => edge.spoolFiles().length === 0, 5_000);
    }, 180_000);
  }

  // Whole bodies cut anywhere: in the headers of a part, in the field, in the file, one byte in.
  const BODY_LENGTHS = [1, 2, 40, 100, 150, 200, 260, 5_000];
  for (const length of BODY_LENGTHS) {
    it(`a body cut to its first ${length} bytes answers a 4xx problem within 1 s`, async () => {
      const { payload, contentType } = uploadBody(10_000);
      const answer = await rawUpload(edge.port, { captureToken, contentType, payload: payload.subarray(0, length) });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(answer.body)).toHaveProperty('code');
      expect(answer.afterLastWriteMs).toBeLessThan(1_000);
      await waitFor('the spool to be empty', () => edge.spoolFiles().length === 0, 5_000);
    });
  }

  it('the same upload, whole, is stored (201): the guard only cuts what is cut', async () => {
    const { payload, contentType } = uploadBody(50_000);
    const answer = await rawUpload(edge.port, { captureToken, contentType, payload });
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ evidenceType: 'LivenessVideo', contentType: 'video/mp4', fileSizeBytes: 50_000 });
    expect(edge.spoolFiles()).toEqual([]);
  });
});
