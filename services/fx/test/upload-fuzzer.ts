/**
 * Multipart upload routes fuzzed the way phones and attackers send them: whole bodies that must be
 * stored (so the fuzz reaches the success path), bodies cut at any byte (Content-Length matching
 * what is sent), files over the route's limit, and bodies that stall mid-way over a real socket.
 * The property: every answer is the expected kind of answer, as problem+json when it is an error,
 * and never a 5xx or a hang. Used by route-fuzzer.ts for the operations named in `uploads`.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { rawExchange } from '@svc/service-kit/testing';
import type { FastifyInstance } from 'fastify';

export interface UploadFuzzSpec {
  /** `METHOD path` of the upload operation, as in the OpenAPI document. */
  operation: string;
  /** Known-good uploads: text fields in order, then the file. Each must be accepted whole. */
  validUploads: { fields: [string, string][]; fileField: string; fileName: string; contentType: string; bytes: Buffer }[];
  /** A file size over the route's limit, for the oversized bodies. */
  oversizedBytes: number;
  /** The listening app (for stalled bodies, which need a real socket and the listener's silence limit). */
  origin?: string;
  /** The app's HTTP_SILENCE_TIMEOUT_MS: a stalled body must be answered within it plus `slackMs`. */
  silenceMs: number;
  slackMs?: number;
}

type UploadKind = 'whole' | 'truncated' | 'oversized' | 'stalled';

interface UploadCase {
  kind: UploadKind;
  upload: number;
  /** Where the body is cut (truncated) or stalls (stalled), as a fraction of its length. */
  at: number;
}

function multipart(upload: UploadFuzzSpec['validUploads'][number], fileBytes: Buffer) {
  const boundary = `----fuzz${randomBytes(8).toString('hex')}`;
  const parts = upload.fields.map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  const fileHead = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${upload.fileField}"; filename="${upload.fileName}"\r\nContent-Type: ${upload.contentType}\r\n\r\n`);
  const closing = Buffer.from(`\r\n--${boundary}--\r\n`);
  const payload = Buffer.concat([...parts, fileHead, fileBytes, closing]);
  // Once the delimiter after the file has arrived, the file is whole: it may be stored though the body was cut after it.
  return { payload, contentType: `multipart/form-data; boundary=${boundary}`, fileComplete: payload.length - closing.length + 2 + boundary.length + 2 };
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
  afterStallMs: number;
}

/** Sends the first `sent` bytes of a body declared whole, then stays silent until the server answers or closes. */
async function stalledRequest(origin: string, path: string, headers: Record<string, string>, contentType: string, payload: Buffer, sent: number, timeoutMs: number): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Type: ${contentType}`, `Content-Length: ${payload.length}`, '', ''].join('\r\n');
  const answer = await rawExchange(Number(port), [head, payload.subarray(0, sent)], { timeoutMs, host: hostname });
  return { status: answer.status, contentType: answer.headers['content-type'] ?? '', body: answer.body, afterStallMs: answer.afterLastWriteMs };
}

/** Whole bodies most of the time (the success path), then each way of breaking them. */
const uploadCases = (uploads: number, stalled: boolean): fc.Arbitrary<UploadCase> =>
  fc.record({
    kind: fc.oneof(
      { weight: 4, arbitrary: fc.constant<UploadKind>('whole') },
      { weight: 4, arbitrary: fc.constant<UploadKind>('truncated') },
      { weight: 1, arbitrary: fc.constant<UploadKind>('oversized') },
      ...(stalled ? [{ weight: 1, arbitrary: fc.constant<UploadKind>('stalled') }] : []),
    ),
    upload: fc.integer({ min: 0, max: uploads - 1 }),
    at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
  });

function isProblem(answer: { status: number; contentType: string; body: string }): boolean {
  if (!answer.contentType.startsWith('application/problem+json')) return false;
  const body = JSON.parse(answer.body) as { status?: unknown; code?: unknown };
  return body.status === answer.status && typeof body.code === 'string';
}

/**
 * Runs `runs` generated uploads against one route; throws with the first wrong answer (fast-check
 * shrinks it). Returns the answers per kind and status, so a caller can check the success path was reached.
 */
export async function fuzzUploadRoute(app: FastifyInstance, spec: UploadFuzzSpec, headers: Record<string, string>, options: { runs: number; seed: number }): Promise<Record<string, number>> {
  const [method, path] = spec.operation.split(' ') as [string, string];
  const counts: Record<string, number> = {};
  const property = fc.asyncProperty(uploadCases(spec.validUploads.length, spec.origin !== undefined), async (generated) => {
    const upload = spec.validUploads[generated.upload]!;
    const fileBytes = generated.kind === 'oversized' ? Buffer.concat([upload.bytes, Buffer.alloc(spec.oversizedBytes - upload.bytes.length + 1, 0x20)]) : upload.bytes;
    const { payload, contentType, fileComplete } = multipart(upload, fileBytes);
    // A cut never reaches the last two bytes: a body cut only after its closing delimiter is whole.
    const cutAt = Math.floor(generated.at * (payload.length - 2));
    let answer: Answer;
    if (generated.kind === 'stalled') {
      answer = await stalledRequest(spec.origin!, path, headers, contentType, payload, cutAt, spec.silenceMs + (spec.slackMs ?? 5_000));
    } else {
      const sent = generated.kind === 'truncated' ? payload.subarray(0, cutAt) : payload;
      const response = await app.inject({ method: method as 'POST', url: path, headers: { ...headers, 'content-type': contentType }, payload: sent });
      answer = { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), body: response.body, afterStallMs: 0 };
    }
    const key = `${generated.kind} ${answer.status}`;
    counts[key] = (counts[key] ?? 0) + 1;
    const stored = (status: number) => status === 201 || status === 200;
    const expected: Record<UploadKind, (status: number) => boolean> = {
      whole: stored,
      truncated: (status) => (status >= 400 && status < 500) || (cutAt >= fileComplete && stored(status)),
      oversized: (status) => status === 413,
      stalled: (status) => status === 408 || status === 400 || (cutAt >= fileComplete && stored(status)),
    };
    if (!expected[generated.kind](answer.status) || (answer.status >= 400 && !isProblem(answer))) {
      throw new Error(`${generated.kind} upload (${payload.length} bytes, cut or stalled at ${cutAt}) → ${answer.status} ${answer.contentType} ${answer.body.slice(0, 300)}`);
    }
    if (generated.kind === 'stalled' && answer.afterStallMs > spec.silenceMs + (spec.slackMs ?? 5_000)) throw new Error(`stalled upload answered after ${answer.afterStallMs} ms`);
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.runs });
  if (details.failed) throw new Error(`${spec.operation} (seed ${options.seed}, path ${details.counterexamplePath}): ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
  return counts;
}
