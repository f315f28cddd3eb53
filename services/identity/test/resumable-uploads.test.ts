import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Upload } from 'tus-js-client';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE, jpegBytes, mp4Bytes, partnerWithToken, sha256, startedCase, type Partner } from './case-helpers.js';
import { PartialUploadStore } from '../src/domain/capture/partial-uploads.js';
import { BASE, buildTestApp, manualClock, type TestApp } from './helpers.js';

const TUS = { 'tus-resumable': '1.0.0' };
const metadata = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

describe('tus resumable uploads at /api/capture/v1/uploads, over real HTTP', () => {
  let test: TestApp;
  let origin: string;
  let acme: Partner;
  const clock = manualClock();

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000', MAX_IMAGE_BYTES: '1000000' }, { clock: clock.now });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
    acme = await partnerWithToken(test, 'Acme');
  });
  afterAll(() => test.close());

  const url = (path = '') => `${origin}${CAPTURE}/uploads${path}`;
  const auth = (token: string) => ({ authorization: `Bearer ${token}`, ...TUS });

  async function create(token: string, evidenceType: string, length: number) {
    return fetch(url(), { method: 'POST', headers: { ...auth(token), 'upload-length': String(length), 'upload-metadata': metadata({ evidenceType, filename: `${evidenceType}.bin` }) } });
  }
  async function created(token: string, evidenceType: string, length: number): Promise<string> {
    const response = await create(token, evidenceType, length);
    expect(response.status, await response.clone().text()).toBe(201);
    return new URL(response.headers.get('location')!, origin).pathname;
  }
  const patch = (token: string, path: string, offset: number, body: Buffer) =>
    fetch(`${origin}${path}`, { method: 'PATCH', headers: { ...auth(token), 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, body });
  const offsetOf = async (token: string, path: string) => {
    const response = await fetch(`${origin}${path}`, { method: 'HEAD', headers: auth(token) });
    expect(response.status).toBe(200);
    return Number(response.headers.get('upload-offset'));
  };
  const partialDir = () => join(test.evidenceDir, 'spool', 'partial');

  it('OPTIONS answers the tus headers', async () => {
    const response = await fetch(url(), { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    expect(response.headers.get('tus-version')).toBe('1.0.0');
    expect(response.headers.get('tus-extension')).toBe('creation,termination,expiration');
    expect(Number(response.headers.get('tus-max-size'))).toBeGreaterThanOrEqual(1_000_000);
  });

  it('resumes after an interrupted PATCH from the bytes the server holds; the result is evidence like a one-request upload', async () => {
    const { caseId, captureToken } = await startedCase(test, acme);
    const video = mp4Bytes(700_000);
    const path = await created(captureToken, 'LivenessVideo', video.length);

    // A PATCH cut after about 300 KB: what arrived stays.
    await new Promise<void>((resolve) => {
      const cut = httpRequest(`${origin}${path}`, { method: 'PATCH', headers: { ...auth(captureToken), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream', 'content-length': String(video.length) } });
      cut.on('error', () => resolve());
      cut.write(video.subarray(0, 300_000), () => setImmediate(() => cut.destroy()));
    });
    await expect.poll(() => offsetOf(captureToken, path), { timeout: 10_000 }).toBeGreaterThan(0);
    const held = await offsetOf(captureToken, path);
    expect(held).toBeLessThanOrEqual(300_000);

    // The bytes on disk are not the person's bytes in the clear.
    const [part] = (await readdir(partialDir())).filter((name) => name.endsWith('.part'));
    const onDisk = await readFile(join(partialDir(), part!));
    expect(onDisk.length).toBe(held);
    expect(onDisk.equals(video.subarray(0, held))).toBe(false);

    const middle = await patch(captureToken, path, held, video.subarray(held, 500_000));
    expect(middle.status).toBe(204);
    expect(middle.headers.get('upload-offset')).toBe('500000');
    const last = await patch(captureToken, path, 500_000, video.subarray(500_000));
    expect(last.status).toBe(200);
    const record = (await last.json()) as { id: string; evidenceType: string; sha256Hash: string; fileSizeBytes: number; contentType: string; quality: unknown };
    expect(record).toMatchObject({ evidenceType: 'LivenessVideo', sha256Hash: sha256(video), fileSizeBytes: video.length, contentType: 'video/mp4', quality: null });

    const downloaded = await fetch(`${origin}${BASE}/evidence/${record.id}/file`, { headers: acme.headers });
    expect(downloaded.status).toBe(200);
    expect(sha256(Buffer.from(await downloaded.arrayBuffer()))).toBe(sha256(video));
    const detail = (await (await fetch(`${origin}${BASE}/verifications/${caseId}`, { headers: acme.headers })).json()) as { videoEvidence: { id: string }[] };
    expect(detail.videoEvidence.map((item) => item.id)).toEqual([record.id]);
    // Its bytes are gone once taken; a client that lost the last answer learns the upload is whole, and cannot add to it.
    expect(await offsetOf(captureToken, path)).toBe(video.length);
    expect((await readdir(partialDir())).filter((name) => name.startsWith(path.split('/').pop()!))).toEqual([`${path.split('/').pop()!}.json`]);
    expect((await patch(captureToken, path, video.length, Buffer.alloc(10))).status).toBeGreaterThanOrEqual(400);
  });

  it('tus-js-client uploads in 256 KB chunks and hands back the evidence record', async () => {
    const { captureToken } = await startedCase(test, acme);
    const photo = jpegBytes(600_000);
    const progress: number[] = [];
    const answer = await new Promise<string>((resolve, reject) => {
      const upload = new Upload(photo, {
        endpoint: url(),
        chunkSize: 256 * 1024,
        headers: { authorization: `Bearer ${captureToken}` },
        metadata: { evidenceType: 'DocumentFront', filename: 'front.jpg' },
        storeFingerprintForResuming: false,
        retryDelays: [],
        onChunkComplete: (_chunk, accepted) => progress.push(accepted),
        onSuccess: (payload) => resolve(payload.lastResponse.getBody()),
        onError: reject,
      });
      upload.start();
    });
    expect(progress).toEqual([262_144, 524_288, 600_000]);
    expect(JSON.parse(answer)).toMatchObject({ evidenceType: 'DocumentFront', sha256Hash: sha256(photo), contentType: 'image/jpeg' });
  });

  it('answers 409 for a PATCH at the wrong offset, and leaves the upload as it was', async () => {
    const { captureToken } = await startedCase(test, acme);
    const path = await created(captureToken, 'Selfie', 10_000);
    expect((await patch(captureToken, path, 0, jpegBytes(4000))).status).toBe(204);
    const conflict = await patch(captureToken, path, 1000, Buffer.alloc(100));
    expect(conflict.status).toBe(409);
    expect(await offsetOf(captureToken, path)).toBe(4000);
  });

  it('refuses a missing or unknown token (401) and hides another session\'s upload (404), for HEAD, PATCH and DELETE', async () => {
    const mine = await startedCase(test, acme);
    const other = await startedCase(test, await partnerWithToken(test, 'Other'));
    const path = await created(mine.captureToken, 'Selfie', 5000);
    expect((await create('svc_ct_unknown', 'Selfie', 5000)).status).toBe(401);
    const noToken = await fetch(url(), { method: 'POST', headers: { ...TUS, 'upload-length': '5000', 'upload-metadata': metadata({ evidenceType: 'Selfie' }) } });
    expect(noToken.status).toBe(401);
    expect((await fetch(`${origin}${path}`, { method: 'HEAD', headers: auth('svc_ct_unknown') })).status).toBe(401);
    for (const method of ['HEAD', 'PATCH', 'DELETE']) {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { ...auth(other.captureToken), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        ...(method === 'PATCH' ? { body: jpegBytes(5000) } : {}),
      });
      expect(response.status, method).toBe(404);
    }
    expect(await offsetOf(mine.captureToken, path)).toBe(0);
  });

  it('refuses an upload longer than its evidence type allows (413) and an unknown evidence type (400)', async () => {
    const { captureToken } = await startedCase(test, acme);
    const tooBig = await create(captureToken, 'Selfie', 1_000_001);
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
    expect((await create(captureToken, 'LivenessVideo', 1_000_001)).status).toBe(201);
    const unknown = await create(captureToken, 'Passport', 1000);
    expect(unknown.status).toBe(400);
    // More bytes than announced are refused too.
    const path = await created(captureToken, 'Selfie', 1000);
    expect((await patch(captureToken, path, 0, jpegBytes(2000))).status).toBe(413);
  });

  it('refuses bytes that are not the evidence type (415) and drops the part', async () => {
    const { captureToken } = await startedCase(test, acme);
    const path = await created(captureToken, 'Selfie', 3000);
    const refused = await patch(captureToken, path, 0, Buffer.alloc(3000, 1));
    expect(refused.status).toBe(415);
    expect(((await refused.json()) as { code: string }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await fetch(`${origin}${path}`, { method: 'HEAD', headers: auth(captureToken) })).status).toBe(404);
  });

  it('never serves partial bytes: no GET on an upload, with or without its token', async () => {
    const { captureToken } = await startedCase(test, acme);
    const path = await created(captureToken, 'Selfie', 10_000);
    expect((await patch(captureToken, path, 0, jpegBytes(5000))).status).toBe(204);
    for (const headers of [auth(captureToken), {}]) {
      const response = await fetch(`${origin}${path}`, { headers });
      expect(response.status).toBe(404);
      expect(Buffer.from(await response.arrayBuffer()).includes(jpegBytes(5000).subarray(0, 20))).toBe(false);
    }
  });

  it('a session that expired takes no more chunks (410), and the sweep removes its parts', async () => {
    const { captureToken } = await startedCase(test, acme);
    const path = await created(captureToken, 'Selfie', 10_000);
    expect((await patch(captureToken, path, 0, jpegBytes(5000))).status).toBe(204);
    clock.advance(3 * 3600_000);
    const late = await patch(captureToken, path, 5000, Buffer.alloc(5000));
    expect(late.status).toBe(410);
    expect(((await late.json()) as { code: string }).code).toBe('SESSION_EXPIRED');
    const id = path.split('/').pop()!;
    expect((await readdir(partialDir())).some((name) => name.startsWith(id))).toBe(true);
    const store = new PartialUploadStore(partialDir(), null as never, () => {
      throw new Error('the sweep creates nothing');
    });
    expect(await store.sweep(clock.now())).toBeGreaterThanOrEqual(1);
    expect((await readdir(partialDir())).some((name) => name.startsWith(id))).toBe(false);
  });
});
