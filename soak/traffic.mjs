// What the soak's load sends and remembers: one `request` function through the fronts that times
// and classifies every answer (a front's upstream-error 502 or a refused connection is a connection
// error, counted apart from 5xx a service sent), and the multipart body of an evidence upload.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../bench/out-of-process.mjs';

/** Every answer of the run: {at, service, route, status, ms, connectionError}; and what was wrong. */
export function createRecorder() {
  return { requests: [], unexpected: [], violations: { revokedTokenAccepted: [] } };
}

/**
 * One request through a front; never throws. Resolves with {status, body, json, connectionError, headers}.
 * `route` names the operation in the figures (not the concrete path, which carries ids).
 */
export async function request(recorder, { service, route, origin, method = 'GET', path, headers = {}, json, form, body, contentType, timeoutMs = 30_000 }) {
  const type = json !== undefined ? 'application/json' : form !== undefined ? 'application/x-www-form-urlencoded' : contentType;
  const started = performance.now();
  const at = Date.now();
  let answer;
  try {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { ...(type ? { 'content-type': type } : {}), ...headers },
      body: json !== undefined ? JSON.stringify(json) : (form ?? body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    const connectionError = response.status === 502 && response.headers.get('x-soak-front') === 'upstream-error';
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (a file, CSV): the caller reads `body`
    }
    answer = { status: response.status, body: text, json: parsed, connectionError, headers: response.headers };
  } catch (error) {
    answer = { status: 0, body: String(error?.cause?.code ?? error?.name ?? error), json: null, connectionError: true, headers: { get: () => null, has: () => false } };
  }
  recorder.requests.push({ at, service, route, status: answer.status, ms: performance.now() - started, connectionError: answer.connectionError });
  return answer;
}

/** The seconds a 503 with Retry-After asks the client to wait (a dependency of the service is away), else null. */
export function askedToRetry(answer) {
  if (answer.status !== 503) return null;
  const seconds = Number(answer.headers.get('retry-after') ?? NaN);
  return Number.isFinite(seconds) ? seconds : null;
}

/**
 * Sends again after a connection error (up to `attempts` times), and after a 503 that carries
 * Retry-After, waiting as asked, for up to 40 s: what a partner's client does while a service
 * answers that its database is away (a PostgreSQL restart).
 */
export async function withRetries(send, attempts = 6) {
  let answer;
  const unavailableUntil = Date.now() + 40_000;
  for (let attempt = 0; attempt < attempts; ) {
    answer = await send();
    const retryAfter = askedToRetry(answer);
    if (retryAfter !== null && Date.now() < unavailableUntil) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(250, retryAfter * 1000)));
      continue;
    }
    if (!answer.connectionError) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
    attempt += 1;
  }
  return answer;
}

const samplesDir = join(root, 'services', 'identity', 'samples');
const samples = [
  ['DocumentFront', 'document-front.jpg', 'image/jpeg'],
  ['Selfie', 'selfie.png', 'image/png'],
  ['LivenessVideo', 'liveness.mp4', 'video/mp4'],
].map(([evidenceType, fileName, type]) => ({ evidenceType, fileName, type, bytes: readFileSync(join(samplesDir, fileName)) }));

/** One upload as the capture API wants it: evidenceType first, then the file. */
export function evidenceUpload({ evidenceType, fileName, type, bytes }) {
  const boundary = `----soak${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="evidenceType"\r\n\r\n${evidenceType}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { evidenceType, body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The three uploads of a sandbox passport case (the simulator never reads the bytes: the tiny samples do). */
export function evidenceUploads() {
  return samples.map(evidenceUpload);
}
