import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualReviewRequiredError, type DocumentType, type EvidenceBytes, type FaceMatchAnswer, type LivenessAnswer, type OcrAnswer } from '../src/contract.js';
import { composeLocalChecks, type CheckEngines, type LocalChecksOptions, type LocalChecksProvider } from '../src/provider.js';
import { buildChecksServer, type ChecksServerOptions } from '../src/server-app.js';

/**
 * The HTTP contract over real HTTP (undici against a listening server): parts, status codes and
 * problem bodies. The engines are small in-process ones that record what they were given, so
 * every refusal and answer is exact; the real engines answer in server.test.ts.
 */

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 7)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1)]);
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(40, 2)]);
const WEBM = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(40, 3)]);

const OCR_ANSWER: OcrAnswer = { modelName: 'test-ocr', modelVersion: '1', confidenceScore: 0.91, fields: { documentNumber: 'N1234567' }, mrzRawText: 'P<SYR...', hasManipulationIndicators: false };
const MATCH_ANSWER: FaceMatchAnswer = { modelName: 'test-face', modelVersion: '2', similarityScore: 0.66 };
const LIVENESS_ANSWER: LivenessAnswer = { modelName: 'test-liveness', modelVersion: '3', livenessScore: 0.1, presentationAttackDetected: true, attackType: 'photo' };
const MODELS = { ocr: { name: 'test-ocr' }, faceMatch: { name: 'test-face' }, liveness: { name: 'test-liveness' } } as unknown as CheckEngines['models'];

interface Received {
  ocr: Array<{ documentType: DocumentType; front: EvidenceBytes; back: EvidenceBytes | null }>;
  match: Array<{ document: EvidenceBytes; selfie: EvidenceBytes }>;
  liveness: Array<{ video: EvidenceBytes; document: EvidenceBytes | null; challenge?: { headTurnSide?: 'left' | 'right' } }>;
}

/** Engines that record their input; `behaviour` decides each answer (default: the fixed answers). */
function recordingChecks(options: LocalChecksOptions, behaviour: { match?: () => Promise<FaceMatchAnswer> } = {}) {
  const received: Received = { ocr: [], match: [], liveness: [] };
  const close = async () => undefined;
  const checks = composeLocalChecks(
    {
      models: MODELS,
      ocr: { label: 'OCR', problems: async () => [], load: async () => ({ read: async (input) => (received.ocr.push(input), OCR_ANSWER), mrzReadable: async () => true, close }) },
      face: {
        label: 'face',
        problems: async () => [],
        load: async () => ({
          match: async (input) => (received.match.push(input), behaviour.match ? behaviour.match() : MATCH_ANSWER),
          liveness: async (input) => (received.liveness.push(input), LIVENESS_ANSWER),
          countFaces: async () => 1,
          close,
        }),
      },
    },
    options,
  );
  return { checks, received };
}

async function listen(options: ChecksServerOptions): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildChecksServer(options);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

type Part = [name: string, value: string] | [name: string, bytes: Buffer, declaredType?: string];

function formOf(parts: Part[]): FormData {
  const form = new FormData();
  for (const [name, value, declaredType] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value], { type: declaredType ?? 'application/octet-stream' }), `${name}.bin`);
  }
  return form;
}

async function post(url: string, parts: Part[]) {
  const response = await request(url, { method: 'POST', body: formOf(parts) });
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as Record<string, unknown> };
}

async function postRaw(url: string, contentType: string, body: string | Buffer) {
  const response = await request(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as Record<string, unknown> };
}

const badRequest = (detail: string) => ({ type: '/problems/bad-request', title: 'Bad Request', status: 400, code: 'BAD_REQUEST', detail });

describe('the checks server, over HTTP', () => {
  let server: { app: FastifyInstance; url: string };
  let provider: ReturnType<typeof recordingChecks>;

  beforeAll(async () => {
    provider = recordingChecks({ concurrency: 2 });
    server = await listen({ checks: provider.checks, maxFileBytes: 4096 });
  });
  afterAll(async () => {
    await server.app.close();
    await provider.checks.close();
  });

  it('answers OCR with the engine\'s answer, handing it the exact bytes with the type read from them, not the declared one', async () => {
    const answer = await post(`${server.url}/ocr`, [['documentType', 'SyrianNationalId'], ['front', JPEG, 'text/plain'], ['back', PNG]]);
    expect(answer).toMatchObject({ status: 200, body: OCR_ANSWER });
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    const [input] = provider.received.ocr.slice(-1);
    expect(input).toEqual({ documentType: 'SyrianNationalId', front: { contentType: 'image/jpeg', bytes: JPEG }, back: { contentType: 'image/png', bytes: PNG } });
  });

  it('answers face match and liveness, the document and the head-turn side for liveness optional', async () => {
    expect(await post(`${server.url}/face-match`, [['document', JPEG], ['selfie', PNG]])).toMatchObject({ status: 200, body: MATCH_ANSWER });
    expect(provider.received.match.slice(-1)).toEqual([{ document: { contentType: 'image/jpeg', bytes: JPEG }, selfie: { contentType: 'image/png', bytes: PNG } }]);
    expect(await post(`${server.url}/liveness`, [['video', MP4]])).toMatchObject({ status: 200, body: LIVENESS_ANSWER });
    expect(await post(`${server.url}/liveness`, [['video', WEBM], ['document', JPEG]])).toMatchObject({ status: 200 });
    expect(await post(`${server.url}/liveness`, [['headTurnSide', 'left'], ['video', MP4]])).toMatchObject({ status: 200 });
    expect(provider.received.liveness.slice(-3)).toEqual([
      { video: { contentType: 'video/mp4', bytes: MP4 }, document: null, challenge: {} },
      { video: { contentType: 'video/webm', bytes: WEBM }, document: { contentType: 'image/jpeg', bytes: JPEG }, challenge: {} },
      { video: { contentType: 'video/mp4', bytes: MP4 }, document: null, challenge: { headTurnSide: 'left' } },
    ]);
  });

  const OCR_TAKES = 'this endpoint takes field documentType, file front, optional file back';
  it.each<[string, string, Part[], string]>([
    ['a missing file', '/ocr', [['documentType', 'SyrianPassport']], `missing front; ${OCR_TAKES}`],
    ['a missing field', '/ocr', [['front', JPEG]], `missing documentType; ${OCR_TAKES}`],
    ['an unknown document type', '/ocr', [['documentType', 'DriverLicence'], ['front', JPEG]], 'documentType must be one of SyrianNationalId, SyrianPassport'],
    ['an unknown part', '/face-match', [['document', JPEG], ['selfie', JPEG], ['extra', JPEG]], 'unexpected part extra; this endpoint takes file document, file selfie'],
    ['an unknown field', '/face-match', [['documentType', 'SyrianPassport'], ['document', JPEG]], 'unexpected part documentType; this endpoint takes file document, file selfie'],
    ['a repeated part', '/ocr', [['documentType', 'SyrianPassport'], ['front', JPEG], ['front', JPEG]], `the part front was sent twice; ${OCR_TAKES}`],
    ['a field where a file belongs', '/ocr', [['documentType', 'SyrianPassport'], ['front', 'not a file']], `front must be a file; ${OCR_TAKES}`],
    ['a file where a field belongs', '/ocr', [['documentType', JPEG], ['front', JPEG]], `documentType must be a plain field, not a file; ${OCR_TAKES}`],
    ['an empty file', '/face-match', [['document', Buffer.alloc(0)], ['selfie', JPEG]], 'the file document is empty'],
    ['text instead of an image', '/face-match', [['document', Buffer.from('hello, I am a passport')], ['selfie', JPEG]], 'document must be a JPEG, PNG, WebP or HEIC image; the bytes sent are not a recognised image or video'],
    ['a video instead of an image', '/ocr', [['documentType', 'SyrianPassport'], ['front', MP4]], 'front must be a JPEG, PNG, WebP or HEIC image; the bytes sent are video/mp4'],
    ['an image instead of a video', '/liveness', [['video', JPEG]], 'video must be an MP4, WebM or QuickTime video; the bytes sent are image/jpeg'],
    ['a head-turn side that is no side', '/liveness', [['headTurnSide', 'up'], ['video', MP4]], 'headTurnSide must be one of left, right'],
  ])('refuses %s with 400 and says what is wrong', async (_case, path, parts, detail) => {
    const before = provider.received.ocr.length + provider.received.match.length + provider.received.liveness.length;
    const answer = await post(`${server.url}${path}`, parts);
    expect(answer).toMatchObject({ status: 400, body: badRequest(detail) });
    expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(provider.received.ocr.length + provider.received.match.length + provider.received.liveness.length).toBe(before);
  });

  it('refuses a malformed multipart body with 400, not 500', async () => {
    const answer = await postRaw(`${server.url}/face-match`, 'multipart/form-data; boundary=XYZ', '--XYZ\r\nContent-Disposition: form-data; name="document"; filename="a.jpg"\r\n\r\n\xff\xd8\xff');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'BAD_REQUEST', detail: expect.stringMatching(/^the multipart body is malformed/) });
  });

  it('refuses a body that is not multipart with 415', async () => {
    const answer = await postRaw(`${server.url}/ocr`, 'application/json', JSON.stringify({ documentType: 'SyrianPassport' }));
    expect(answer).toMatchObject({ status: 415, body: { type: '/problems/unsupported-media-type', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'send the evidence as multipart/form-data' } });
  });

  it('refuses a file over the size limit with 413', async () => {
    const answer = await post(`${server.url}/face-match`, [['document', Buffer.concat([JPEG, Buffer.alloc(5000)])], ['selfie', JPEG]]);
    expect(answer).toMatchObject({ status: 413, body: { status: 413, code: 'PAYLOAD_TOO_LARGE', title: 'Payload Too Large' } });
  });

  it('answers an unknown route with a 404 problem', async () => {
    const response = await request(`${server.url}/ocr/v2`, { method: 'POST' });
    expect(response.statusCode).toBe(404);
    expect(await response.body.json()).toEqual({ type: '/problems/not-found', title: 'Not Found', status: 404, code: 'NOT_FOUND', detail: 'no route POST /ocr/v2' });
  });
});

describe('the checks server, when a check cannot answer', () => {
  it('answers 422 MANUAL_REVIEW_REQUIRED with the reason for a person', async () => {
    const provider = recordingChecks({}, { match: () => Promise.reject(new ManualReviewRequiredError('no face was found in the selfie')) });
    const server = await listen({ checks: provider.checks });
    try {
      const answer = await post(`${server.url}/face-match`, [['document', JPEG], ['selfie', JPEG]]);
      expect(answer.status).toBe(422);
      expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(answer.body).toEqual({ type: '/problems/manual-review-required', title: 'Manual review required', status: 422, code: 'MANUAL_REVIEW_REQUIRED', detail: 'no face was found in the selfie' });
    } finally {
      await server.app.close();
      await provider.checks.close();
    }
  });

  it('answers 503 with Retry-After when all requests slots are taken, and again when the check queue stays full', async () => {
    let releaseMatch!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseMatch = resolve;
    });
    const provider = recordingChecks({ concurrency: 1, queueTimeoutMs: 50 }, { match: async () => (await held, MATCH_ANSWER) });
    const server = await listen({ checks: provider.checks, maxRequestsInFlight: 2 });
    try {
      const first = post(`${server.url}/face-match`, [['document', JPEG], ['selfie', JPEG]]);
      await expect.poll(() => provider.received.match.length).toBe(1);
      // Second request: admitted, but waits for the one check slot longer than the queue allows.
      const queued = post(`${server.url}/face-match`, [['document', JPEG], ['selfie', JPEG]]);
      // Third, while those two are in flight: refused before its body is read.
      const refused = await post(`${server.url}/face-match`, [['document', JPEG], ['selfie', JPEG]]);
      expect(refused).toMatchObject({ status: 503, body: { code: 'CHECKS_UNAVAILABLE', detail: '2 check requests are already in progress' } });
      expect(refused.headers['retry-after']).toBe('1');
      expect(await queued).toMatchObject({ status: 503, body: { code: 'CHECKS_UNAVAILABLE', detail: 'face match: all 1 check slots stayed busy for 50 ms' } });
      releaseMatch();
      expect(await first).toMatchObject({ status: 200, body: MATCH_ANSWER });
    } finally {
      releaseMatch();
      await server.app.close();
      await provider.checks.close();
    }
  });
});

describe('the checks server health', () => {
  let provider: LocalChecksProvider;
  let server: { app: FastifyInstance; url: string };
  beforeAll(async () => {
    provider = recordingChecks({}).checks;
    server = await listen({ checks: provider });
  });
  afterAll(async () => {
    await server.app.close();
    await provider.close();
  });

  it('is 503 with its problems until the models are loaded, then 200 with the models', async () => {
    const cold = await request(`${server.url}/health`);
    expect(cold.statusCode).toBe(503);
    expect(cold.headers['cache-control']).toBe('no-store');
    expect(await cold.body.json()).toEqual({ status: 'unavailable', problems: ['the OCR engine is not loaded yet', 'the face engine is not loaded yet'], models: MODELS });
    await provider.warm();
    const warm = await request(`${server.url}/health`);
    expect(warm.statusCode).toBe(200);
    expect(await warm.body.json()).toEqual({ status: 'ok', models: MODELS });
  });
});
