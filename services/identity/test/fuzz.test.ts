import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { createPortalUser } from '../src/domain/tenants/tenants.js';
// The generic fuzzer is fx's: one copy for both services (fast-check is a service devDependency only).
import { fuzzEveryRoute, type FuzzOperation, type RouteCredentials } from '../../fx/test/route-fuzzer.js';
import type { AddressInfo } from 'node:net';
import type { UploadFuzzSpec } from '../../fx/test/upload-fuzzer.js';
import { CAPTURE, jpegBytes, mp4Bytes, partnerWithToken, pngBytes, startedCase, uploadEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, certificateHeader, PASSWORD, registerClient, requestToken, type TestApp } from './helpers.js';

// FUZZ_SEED replays a reported failure; FUZZ_ROUTE narrows the run to one route; FUZZ_RUNS raises the effort.
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const INTERNAL = '/api/internal/v1';
const PUBLIC_TARGET = 'https://93.184.215.14/hooks';
// Small limits so oversized bodies are cheap to send; a short silence limit so stalled ones are quick.
const MAX_IMAGE_BYTES = 65_536;
const MAX_VIDEO_BYTES = 131_072;
const SILENCE_MS = 300;

let test: TestApp;
let partner: Partner;
let spareClientId: string;
let evidenceId: string;
let staffEmail: string;

/** The internal routes are in the staff document, not in app.swagger() that the shared fuzzer reads: the ones fuzzed are given here. */
const hiddenOperations: FuzzOperation[] = [
  {
    method: 'POST',
    path: `${INTERNAL}/login`,
    security: [],
    parameters: [],
    bodies: { 'application/json': { type: 'object', properties: { email: { type: 'string', format: 'email' }, password: { type: 'string' } }, required: ['email', 'password'] } },
  },
  {
    method: 'GET',
    path: `${INTERNAL}/review-queue`,
    security: ['staffSession'],
    parameters: [
      { in: 'query', name: 'page', schema: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
      { in: 'query', name: 'pageSize', schema: { type: 'integer', minimum: 1, maximum: 100 } },
    ],
    bodies: {},
  },
  {
    method: 'POST',
    path: `${INTERNAL}/cases/{caseId}/review`,
    security: ['staffSession'],
    parameters: [{ in: 'path', name: 'caseId', schema: { type: 'string', format: 'uuid' } }],
    bodies: { 'application/json': { type: 'object', properties: { decision: { enum: ['Approved', 'Rejected'] }, reason: { type: 'string', minLength: 1 } }, required: ['decision', 'reason'] } },
  },
];

beforeAll(async () => {
  // A high per-minute limit: the fuzz is about validation, and a 429 would answer before it.
  test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', MAX_IMAGE_BYTES: String(MAX_IMAGE_BYTES), MAX_VIDEO_BYTES: String(MAX_VIDEO_BYTES), HTTP_SILENCE_TIMEOUT_MS: String(SILENCE_MS) });
  // Listening as well: stalled bodies need a real socket and the listener's silence limit.
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  partner = await partnerWithToken(test);
  spareClientId = (await registerClient(test, partner)).id;
  const started = await startedCase(test, partner);
  const uploaded = await uploadEvidence(test, started.captureToken, 'DocumentFront', jpegBytes());
  expect(uploaded.statusCode, uploaded.body).toBe(201);
  evidenceId = uploaded.json<{ evidenceId: string }>().evidenceId;
  staffEmail = `reviewer-${randomUUID()}@operator.example`;
  await test.db.transaction((tx) => createStaffUser(tx, { email: staffEmail, password: PASSWORD }, new Date()));
});
afterAll(async () => {
  await test?.close();
});

async function loginAs(url: string, email: string): Promise<string> {
  const response = await test.app.inject({ method: 'POST', url, payload: { email, password: PASSWORD } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ sessionToken: string }>().sessionToken;
}

/** An existing endpoint of the partner: the fuzz may have deleted the last one, or filled the tenant's allowance. */
async function webhookEndpointId(headers: Record<string, string>): Promise<string> {
  const listed = await test.app.inject({ method: 'GET', url: `${BASE}/webhooks`, headers });
  const [existing] = listed.json<{ id: string }[]>();
  if (existing) return existing.id;
  const created = await test.app.inject({ method: 'POST', url: `${BASE}/webhooks`, headers, payload: { url: PUBLIC_TARGET, eventTypes: ['verification.approved'] } });
  expect(created.statusCode, created.body).toBe(201);
  return created.json<{ endpoint: { id: string } }>().endpoint.id;
}

/**
 * Fresh credentials per route, because a run may end them: a portal logout, a token revoked or
 * replaced, a one-time capture session exchanged. Known ids are of things that route may act on.
 */
async function credentialsFor(operation: FuzzOperation): Promise<RouteCredentials> {
  const token = await requestToken(test, partner.clientId, partner.cert);
  expect(token.statusCode, token.body).toBe(200);
  const tokenHeaders = { authorization: `Bearer ${token.json<{ access_token: string }>().access_token}`, ...certificateHeader(partner.cert) };
  const started = await startedCase(test, { ...partner, headers: tokenHeaders });
  const pathValues = { caseId: [started.caseId], id: [await webhookEndpointId(tokenHeaders)], evidenceId: [evidenceId], clientEntityId: [spareClientId] };
  const { security } = operation;
  if (security.includes('staffSession')) return { headers: { authorization: `Bearer ${await loginAs(`${INTERNAL}/login`, staffEmail)}` }, pathValues };
  if (security.includes('captureSession')) {
    const created = await test.app.inject({ method: 'POST', url: `${BASE}/verifications`, headers: tokenHeaders, payload: { documentType: 'SyrianPassport' } });
    return { headers: { authorization: `Bearer ${created.json<{ sessionToken: string }>().sessionToken}` } };
  }
  if (security.includes('captureToken')) return { headers: started.capture };
  if (security.includes('accessToken') || security.includes('mutualTLS')) return { headers: tokenHeaders, pathValues };
  if (security.includes('portalSession')) {
    // A colleague of its own per route: the fuzz's wrong current passwords lock the address they sign in with.
    const email = `admin-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createPortalUser(tx, { tenantId: partner.tenantId, email, password: PASSWORD, role: 'PartnerAdmin' }, new Date()));
    return { headers: { authorization: `Bearer ${await loginAs(`${BASE}/portal/login`, email)}` }, pathValues };
  }
  return { headers: {}, pathValues };
}

/** The capture upload, as the fuzzer sends it whole, cut, oversized (over the video limit, the larger) and stalled. */
const uploads = (): UploadFuzzSpec[] => [
  {
    operation: `POST ${CAPTURE}/evidence`,
    validUploads: [
      { fields: [['evidenceType', 'DocumentFront']], fileField: 'file', fileName: 'front.jpg', contentType: 'image/jpeg', bytes: jpegBytes() },
      { fields: [['evidenceType', 'Selfie']], fileField: 'file', fileName: 'selfie.png', contentType: 'image/png', bytes: pngBytes() },
      { fields: [['evidenceType', 'LivenessVideo']], fileField: 'file', fileName: 'clip.mp4', contentType: 'video/mp4', bytes: mp4Bytes() },
    ],
    oversizedBytes: MAX_VIDEO_BYTES,
    origin: `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`,
    silenceMs: SILENCE_MS,
  },
];

describe('fuzzing every identity route', () => {
  it(`answers no 5xx to ${RUNS} generated requests per route (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const started = Date.now();
    const { operations, failures, statuses, milliseconds } = await fuzzEveryRoute(test.app, {
      credentialsFor,
      hiddenOperations,
      hints: {
        client_id: [partner.clientId],
        grant_type: ['client_credentials'],
        scope: ['verifications', 'webhooks evidence'],
        url: [PUBLIC_TARGET],
        email: [partner.email, staffEmail],
        password: [PASSWORD],
        documentType: ['SyrianPassport', 'SyrianNationalId'],
      },
      runsPerRoute: RUNS,
      seed: SEED,
      uploads: uploads(),
      ...(process.env.FUZZ_ROUTE ? { only: process.env.FUZZ_ROUTE } : {}),
    });
    for (const [operation, counts] of Object.entries(statuses)) console.log(`${operation} ${milliseconds[operation]} ms`, JSON.stringify(counts));
    console.log(`fuzzed ${operations.length} identity operations × ${RUNS} runs in ${Date.now() - started} ms`);
    expect(operations.length).toBeGreaterThan(process.env.FUZZ_ROUTE ? 0 : 30);
    expect(operations).toContain(`POST ${CAPTURE}/evidence`);
    expect(failures.map((failure) => `${failure.operation} (FUZZ_SEED=${SEED}, route seed ${failure.seed}, path ${failure.counterexamplePath})\n${failure.detail}`)).toEqual([]);
    // The upload fuzz reached the success path and each way of breaking a body.
    if (!process.env.FUZZ_ROUTE || `POST ${CAPTURE}/evidence`.includes(process.env.FUZZ_ROUTE)) {
      const uploadAnswers = Object.keys(statuses[`POST ${CAPTURE}/evidence uploads`] ?? {});
      for (const kind of ['whole 201', 'truncated 400', 'oversized 413', 'stalled 408']) expect(uploadAnswers).toContain(kind);
    }
  });
});
