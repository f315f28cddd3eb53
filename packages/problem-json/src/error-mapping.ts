import { STATUS_CODES } from 'node:http';
import type { FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { fieldErrorsFromAjvValidation, fieldErrorsFromZodValidation, requestPartPrefix, summariseFieldErrors } from './field-errors.js';
import type { FieldError } from './problem-document.js';
import { DependencyUnavailableError, InternalError, PayloadTooLargeError, ProblemError, UnsupportedMediaTypeError, ValidationError } from './problem-error.js';

/** What the plugin answers for a thrown value, and which table row decided it (logged as `errorKind`). */
export interface MappedError {
  problem: ProblemError;
  kind: string;
}

interface ErrorRule {
  kind: string;
  map: (error: unknown, request: FastifyRequest) => ProblemError | undefined;
}

/** Pairs a type guard with its mapping so each row of the table stays type-safe without casts. */
function errorRule<E>(kind: string, matches: (error: unknown) => error is E, toProblem: (error: E, request: FastifyRequest) => ProblemError): ErrorRule {
  return { kind, map: (error, request) => (matches(error) ? toProblem(error, request) : undefined) };
}

interface ErrorWithCode {
  code: string;
  message: string;
  validationContext?: string;
}

function isErrorWithCode(error: unknown): error is ErrorWithCode {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

function validationProblem(errors: FieldError[]): ValidationError {
  return new ValidationError(summariseFieldErrors(errors), errors);
}

// Only a short, printable media type goes back into a body.
function describeMediaType(request: FastifyRequest): string | undefined {
  const mediaType = request.headers['content-type']?.split(';', 1)[0]?.trim();
  return mediaType && /^[\x21-\x7e]{1,100}$/.test(mediaType) ? mediaType : undefined;
}

/** Fastify core errors that have a better answer than their bare status code. */
const FASTIFY_ERROR_CODE_PROBLEMS: Readonly<Record<string, (error: ErrorWithCode, request: FastifyRequest) => ProblemError>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: (_error, request) =>
    new PayloadTooLargeError(`The request body exceeds the limit of ${request.routeOptions.bodyLimit} bytes.`),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (_error, request) => {
    const mediaType = describeMediaType(request);
    return new UnsupportedMediaTypeError(
      mediaType ? `Content-Type ${mediaType} is not supported by this endpoint.` : 'The request Content-Type is not supported by this endpoint.',
    );
  },
  FST_ERR_CTP_INVALID_JSON_BODY: () =>
    new ValidationError('The request body is not valid JSON.', [{ path: 'body', message: 'Body is not valid JSON' }]),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    new ValidationError('The request body is empty but its Content-Type is application/json.', [{ path: 'body', message: 'Body is empty' }]),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new ValidationError('The request body size does not match its Content-Length header.', [
      { path: 'headers.content-length', message: 'Does not match the body size' },
    ]),
  // A custom validator that returned an Error instead of a list of issues.
  FST_ERR_VALIDATION: (error) => validationProblem([{ path: requestPartPrefix(error.validationContext), message: error.message }]),
};

function hasKnownFastifyCode(error: unknown): error is ErrorWithCode {
  return isErrorWithCode(error) && Object.hasOwn(FASTIFY_ERROR_CODE_PROBLEMS, error.code);
}

/** Generic codes for any other 4xx error, e.g. from a library that sets `statusCode`. */
const CLIENT_ERROR_STATUS_PROBLEMS: Readonly<Record<number, { code: string; title: string }>> = {
  400: { code: 'BAD_REQUEST', title: 'Bad Request' },
  401: { code: 'UNAUTHENTICATED', title: 'Unauthenticated' },
  403: { code: 'FORBIDDEN', title: 'Forbidden' },
  404: { code: 'NOT_FOUND', title: 'Not Found' },
  405: { code: 'METHOD_NOT_ALLOWED', title: 'Method Not Allowed' },
  406: { code: 'NOT_ACCEPTABLE', title: 'Not Acceptable' },
  408: { code: 'REQUEST_TIMEOUT', title: 'Request Timeout' },
  409: { code: 'CONFLICT', title: 'Conflict' },
  413: { code: 'PAYLOAD_TOO_LARGE', title: 'Payload Too Large' },
  414: { code: 'URI_TOO_LONG', title: 'URI Too Long' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', title: 'Unsupported Media Type' },
  422: { code: 'UNPROCESSABLE_CONTENT', title: 'Unprocessable Content' },
  429: { code: 'RATE_LIMITED', title: 'Rate Limited' },
};

interface ClientStatusError {
  statusCode: number;
  message: string;
}

function hasClientErrorStatus(error: unknown): error is ClientStatusError {
  if (!(error instanceof Error)) return false;
  const { statusCode } = error as { statusCode?: unknown };
  return typeof statusCode === 'number' && Number.isInteger(statusCode) && statusCode >= 400 && statusCode <= 499;
}

// 4xx messages are written for the caller (Fastify's own default handler shows them too).
function clientStatusProblem(error: ClientStatusError): ProblemError {
  const row = CLIENT_ERROR_STATUS_PROBLEMS[error.statusCode] ?? { code: 'CLIENT_ERROR', title: STATUS_CODES[error.statusCode] ?? 'Client Error' };
  return new ProblemError({ status: error.statusCode, ...row, detail: error.message || row.title });
}

function hasAjvValidation(error: unknown): error is { validation: FastifySchemaValidationError[]; validationContext?: string } {
  return error instanceof Error && Array.isArray((error as { validation?: unknown }).validation);
}

function isZodResponseSerializationError(error: unknown): error is Error {
  return isErrorWithCode(error) && error.code === 'FST_ERR_RESPONSE_SERIALIZATION' && isResponseSerializationError(error);
}

/**
 * Codes that mean the connection to a dependency failed, not the request: the driver's own
 * (postgres.js), the socket's, and PostgreSQL's connection and shutdown SQLSTATEs (class 08,
 * 57P01-57P03 when a server restarts or an operator terminates sessions, 53300 too many connections).
 */
const CONNECTION_FAILURE_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** The first connection failure in the error or its causes (Drizzle wraps the driver's error in its own). */
function connectionFailure(error: unknown): error is Error {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_FAILURE_CODES.has(code) || code.startsWith('08'))) return true;
    current = current.cause;
  }
  return false;
}

/** Checked in order; the first row that matches decides the answer. */
const ERROR_RULES: readonly ErrorRule[] = [
  errorRule('problem-error', (error): error is ProblemError => error instanceof ProblemError, (error) => error),
  errorRule('request-validation', hasZodFastifySchemaValidationErrors, (error) =>
    validationProblem(fieldErrorsFromZodValidation(requestPartPrefix(error.validationContext), error.validation)),
  ),
  errorRule('request-validation', hasAjvValidation, (error) =>
    validationProblem(fieldErrorsFromAjvValidation(requestPartPrefix(error.validationContext), error.validation)),
  ),
  errorRule('response-serialization', isZodResponseSerializationError, () => new InternalError()),
  errorRule('fastify', hasKnownFastifyCode, (error, request) => {
    const toProblem = FASTIFY_ERROR_CODE_PROBLEMS[error.code];
    return toProblem ? toProblem(error, request) : new InternalError();
  }),
  errorRule('client-error', hasClientErrorStatus, clientStatusProblem),
  errorRule('dependency-unavailable', connectionFailure, (error) => new DependencyUnavailableError(undefined, error)),
];

/** Maps anything thrown to the problem to answer with; unknown errors become a bare 500. */
export function mapErrorToProblem(error: unknown, request: FastifyRequest): MappedError {
  for (const rule of ERROR_RULES) {
    const problem = rule.map(error, request);
    if (problem) return { problem, kind: rule.kind };
  }
  return { problem: new InternalError(), kind: 'unexpected' };
}
