import { createHash, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { BASE, clientWithToken, createLoggedInTenant, type TestApp } from './helpers.js';

export const CAPTURE = '/api/capture/v1';

/** Issued a year ago, expiring in five years: an expired document would send a case to review whatever the checks say. */
export function holderValidToday(): { dateOfIssue: string; expiryDate: string } {
  const issued = new Date();
  issued.setUTCFullYear(issued.getUTCFullYear() - 1);
  const expires = new Date(issued);
  expires.setUTCFullYear(issued.getUTCFullYear() + 6);
  return { dateOfIssue: issued.toISOString().slice(0, 10), expiryDate: expires.toISOString().slice(0, 10) };
}

/** Real file headers (what file-type reads) followed by random bytes up to `size`. */
function withPadding(head: Buffer, size: number): Buffer {
  return size <= head.length ? head : Buffer.concat([head, randomBytes(size - head.length)]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, Buffer.from(type, 'ascii'), data, Buffer.alloc(4)]);
}

/** A 1×1 PNG (CRCs left zero: sniffers read the structure, not the checksums). */
export function pngBytes(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(Buffer.alloc(4))), pngChunk('IEND', Buffer.alloc(0))]);
}

export function jpegBytes(size = 2048): Buffer {
  return withPadding(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]), size);
}

/** An ISO BMFF file with an `ftyp` box of brand isom: what file-type calls video/mp4. */
export function mp4Bytes(size = 4096): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'ascii'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2', 'ascii')]);
  return withPadding(ftyp, size);
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A logged-in tenant with a client and a token holding every scope. */
export async function partnerWithToken(test: TestApp, name = 'Acme', allowedScopes?: string, options: { sandbox?: boolean } = {}) {
  const tenant = await createLoggedInTenant(test, name, options);
  const client = await clientWithToken(test, tenant, allowedScopes);
  return { ...tenant, ...client };
}

export type Partner = Awaited<ReturnType<typeof partnerWithToken>>;

export async function createCase(test: TestApp, partner: Partner, body: Record<string, unknown> = { documentType: 'SyrianPassport' }, headers: Record<string, string> = {}) {
  return test.app.inject({ method: 'POST', url: `${BASE}/verifications`, headers: { ...partner.headers, ...headers }, payload: body });
}

/** A case created and its session exchanged: the end user may upload now. */
export async function startedCase(test: TestApp, partner: Partner, documentType: 'SyrianPassport' | 'SyrianNationalId' = 'SyrianPassport', externalReference?: string) {
  const created = await createCase(test, partner, { documentType, ...(externalReference ? { externalReference } : {}) });
  if (created.statusCode !== 201) throw new Error(`create failed: ${created.statusCode} ${created.body}`);
  const { caseId, sessionToken } = created.json<{ caseId: string; sessionToken: string }>();
  const exchanged = await test.app.inject({ method: 'POST', url: `${CAPTURE}/session`, headers: { authorization: `Bearer ${sessionToken}` } });
  if (exchanged.statusCode !== 200) throw new Error(`exchange failed: ${exchanged.statusCode} ${exchanged.body}`);
  const captureToken = exchanged.json<{ captureToken: string }>().captureToken;
  return { caseId, sessionToken, captureToken, capture: { authorization: `Bearer ${captureToken}` } };
}

/** A multipart body built by hand, so tests control field order and file names exactly. */
export function multipartBody(parts: ({ name: string; value: string } | { name: string; fileName: string; contentType: string; bytes: Buffer })[]) {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = 'fileName' in part ? `form-data; name="${part.name}"; filename="${part.fileName}"\r\nContent-Type: ${part.contentType}` : `form-data; name="${part.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push('bytes' in part ? part.bytes : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function uploadEvidence(test: TestApp, captureToken: string, evidenceType: string, bytes: Buffer, fileName = 'capture.bin', contentType = 'application/octet-stream') {
  const body = multipartBody([
    { name: 'evidenceType', value: evidenceType },
    { name: 'file', fileName, contentType, bytes },
  ]);
  return test.app.inject({
    method: 'POST',
    url: `${CAPTURE}/evidence`,
    headers: { authorization: `Bearer ${captureToken}`, 'content-type': body.contentType },
    payload: body.payload,
  });
}

/** Everything a passport case needs, uploaded. */
export async function uploadPassportEvidence(test: TestApp, captureToken: string) {
  for (const [type, bytes] of [
    ['DocumentFront', jpegBytes()],
    ['Selfie', pngBytes()],
    ['LivenessVideo', mp4Bytes()],
  ] as const) {
    const response = await uploadEvidence(test, captureToken, type, bytes);
    if (response.statusCode !== 201) throw new Error(`upload ${type} failed: ${response.statusCode} ${response.body}`);
  }
}

export async function submittedCase(test: TestApp, partner: Partner, externalReference?: string) {
  const started = await startedCase(test, partner, 'SyrianPassport', externalReference);
  await uploadPassportEvidence(test, started.captureToken);
  const submitted = await test.app.inject({ method: 'POST', url: `${CAPTURE}/submit`, headers: started.capture });
  if (submitted.statusCode !== 200) throw new Error(`submit failed: ${submitted.statusCode} ${submitted.body}`);
  return started;
}

export async function getCase(test: TestApp, partner: Partner, caseId: string) {
  return test.app.inject({ method: 'GET', url: `${BASE}/verifications/${caseId}`, headers: partner.headers });
}
