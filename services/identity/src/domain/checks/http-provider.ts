import { Agent, FormData, request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { errorCode, readEvidenceBytes } from './evidence-bytes.js';
import { ManualReviewRequiredError, TransientProviderError, type ChecksProvider, type EvidenceFile, type FaceMatchAnswer, type LivenessAnswer, type OcrAnswer } from './checks-provider.js';

export interface HttpChecksProviderOptions {
  ocrUrl: string;
  faceMatchUrl: string;
  livenessUrl: string;
  /** Per call, from connecting to the last byte of the answer; a call over it is retried. */
  timeoutMs: number;
}

/** An answer is a few scores and extracted fields; anything larger is not an answer. */
const MAX_ANSWER_BYTES = 1024 * 1024;

const score = z.number().min(0).max(1);
const modelIdentity = { modelName: z.string().min(1), modelVersion: z.string().min(1) };

// z.object drops unknown keys, which matters: run-checks spreads each answer into its result row.
const ocrAnswerSchema = z.object({
  ...modelIdentity,
  confidenceScore: score,
  fields: z.record(z.string(), z.string()),
  fieldsToConfirm: z.array(z.string().max(64)).max(32).optional(),
  mrzRawText: z
    .string()
    .nullish()
    .transform((value) => value ?? null),
  hasManipulationIndicators: z.boolean(),
}) satisfies z.ZodType<OcrAnswer, unknown>;

const faceMatchAnswerSchema = z.object({ ...modelIdentity, similarityScore: score }) satisfies z.ZodType<FaceMatchAnswer, unknown>;

const livenessAnswerSchema = z.object({
  ...modelIdentity,
  livenessScore: score,
  presentationAttackDetected: z.boolean(),
  attackType: z
    .string()
    .nullish()
    .transform((value) => value ?? null),
}) satisfies z.ZodType<LivenessAnswer, unknown>;

/** A refusal or an answer no retry will change: a plain Error to run-checks, which fails the case now. */
class UnusableAnswerError extends Error {
  override name = 'UnusableAnswerError';
}

/** The inference server is overloaded, restarting or slow: answers a later attempt may well not get. */
const isTransientStatus = (status: number) => status >= 500 || status === 429 || status === 408;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * What a transport failure was, in words for the case's reason; always worth another attempt.
 * The original error rides along as `cause` for the worker's log, which is the operator's to read.
 */
function transportFailure(check: string, error: unknown, timeoutMs: number): TransientProviderError {
  const code = errorCode(error);
  if (code === 'TimeoutError' || code === 'AbortError' || TIMEOUT_CODES.has(code)) return new TransientProviderError(`${check}: timed out after ${timeoutMs} ms`, { cause: error });
  return new TransientProviderError(`${check}: could not reach the inference server (${code})`, { cause: error });
}

/** The file extension a sniffed content type is usually saved with, for servers that look at file names. */
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heic',
  'image/heif': 'heif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};

async function appendEvidence(form: FormData, check: string, field: string, file: EvidenceFile): Promise<void> {
  const bytes = await readEvidenceBytes(check, file);
  const extension = EXTENSIONS[file.contentType];
  form.append(field, new Blob([bytes], { type: file.contentType }), extension ? `${field}.${extension}` : field);
}

/** At most MAX_ANSWER_BYTES of the answer; a longer one is abandoned (the socket closed) and refused. */
async function readAnswerText(check: string, body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) throw new UnusableAnswerError(`${check} answer was larger than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A 422 problem with code MANUAL_REVIEW_REQUIRED (@svc/checks-local's server answers it when no
 * answer is worth acting on): its detail, cut to one short line, else null.
 */
async function manualReviewReason(body: Dispatcher.ResponseData['body']): Promise<string | null> {
  try {
    const problem = JSON.parse(await readAnswerText('problem', body)) as { code?: unknown; detail?: unknown };
    if (problem.code !== 'MANUAL_REVIEW_REQUIRED' || typeof problem.detail !== 'string') return null;
    return problem.detail.replace(/\s+/g, ' ').slice(0, 300);
  } catch {
    return null;
  }
}

/** Zod's issues as one line: `confidenceScore: expected number, received undefined; fields.name: …`. */
function describeIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, 5).map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(answer)'}: ${issue.message}`);
  return issues.join('; ') + (error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : '');
}

/**
 * The production checks provider: three inference servers, one multipart POST each. Their URLs
 * are operator configuration, usually private inference hosts, so calls go straight through a
 * dedicated undici Agent rather than @svc/outbound-http, whose guard refuses exactly those addresses.
 * Outages, timeouts, 5xx, 408 and 429 throw TransientProviderError (the job queue retries);
 * another refusal or an answer off its schema throws a plain Error (the case fails now). Messages
 * carry the check, the status or error code and schema paths, never the evidence or the answer body.
 */
export function createHttpChecksProvider(options: HttpChecksProviderOptions): ChecksProvider & { close(): Promise<void> } {
  const { timeoutMs } = options;
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

  async function post<T>(check: string, url: string, form: FormData, schema: z.ZodType<T, unknown>): Promise<T> {
    let text: string;
    try {
      // One deadline for the whole exchange: the upload, the inference and the answer.
      const response = await request(url, {
        method: 'POST',
        body: form,
        headers: { accept: 'application/json', 'user-agent': 'identity-checks/1' },
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.statusCode === 422) {
        const reason = await manualReviewReason(response.body);
        if (reason) throw new ManualReviewRequiredError(`${check}: ${reason}`);
        throw new UnusableAnswerError(`${check} request was refused: inference server answered 422`);
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        // Drained (not read) so the socket can be reused; the body stays out of the message, it may carry internals.
        await response.body.dump({ limit: MAX_ANSWER_BYTES });
        if (isTransientStatus(response.statusCode)) throw new TransientProviderError(`${check}: inference server answered ${response.statusCode}`);
        throw new UnusableAnswerError(`${check} request was refused: inference server answered ${response.statusCode}`);
      }
      text = await readAnswerText(check, response.body);
    } catch (error) {
      if (error instanceof TransientProviderError || error instanceof UnusableAnswerError || error instanceof ManualReviewRequiredError) throw error;
      throw transportFailure(check, error, timeoutMs);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new UnusableAnswerError(`${check} answer was not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new UnusableAnswerError(`${check} answer did not match its schema: ${describeIssues(parsed.error)}`);
    return parsed.data;
  }

  return {
    name: 'http',
    async ocr({ documentType, front, back }) {
      const form = new FormData();
      form.append('documentType', documentType);
      await appendEvidence(form, 'OCR', 'front', front);
      if (back) await appendEvidence(form, 'OCR', 'back', back);
      return post('OCR', options.ocrUrl, form, ocrAnswerSchema);
    },
    async faceMatch({ document, selfie }) {
      const form = new FormData();
      await appendEvidence(form, 'face match', 'document', document);
      await appendEvidence(form, 'face match', 'selfie', selfie);
      return post('face match', options.faceMatchUrl, form, faceMatchAnswerSchema);
    },
    async liveness({ video, document, headTurnSide }) {
      const form = new FormData();
      if (headTurnSide) form.append('headTurnSide', headTurnSide);
      await appendEvidence(form, 'liveness', 'video', video);
      await appendEvidence(form, 'liveness', 'document', document);
      return post('liveness', options.livenessUrl, form, livenessAnswerSchema);
    },
    close: () => agent.close(),
  };
}
