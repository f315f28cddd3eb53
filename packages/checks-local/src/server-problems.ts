import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ManualReviewRequiredError } from './contract.js';
import { ChecksUnavailableError } from './provider.js';
import { BadEvidenceError, NotMultipartError } from './server-evidence.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An RFC 9457 problem body, with the machine-readable `code` every service of this repository adds. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
}

interface ProblemRule {
  matches(error: unknown): boolean;
  status: number;
  code: string;
  title: string;
  /** Safe to show the caller: our own messages, or the web framework's wording of a client mistake. */
  detail(error: unknown): string;
  headers?: Record<string, string>;
}

const messageOf = (error: unknown) => (error as Error).message;

/** Client mistakes Fastify and @fastify/multipart report with a status of their own; their messages name only the mistake. */
const CLIENT_ERROR_CODES: Record<number, { code: string; title: string }> = {
  400: { code: 'BAD_REQUEST', title: 'Bad Request' },
  404: { code: 'NOT_FOUND', title: 'Not Found' },
  405: { code: 'METHOD_NOT_ALLOWED', title: 'Method Not Allowed' },
  408: { code: 'REQUEST_TIMEOUT', title: 'Request Timeout' },
  413: { code: 'PAYLOAD_TOO_LARGE', title: 'Payload Too Large' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', title: 'Unsupported Media Type' },
};

const clientStatusOf = (error: unknown): number | null => {
  const status = (error as Partial<FastifyError> | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
};

/**
 * Errors to answers, first match wins. 422 is how identity learns a case must go to a person (its
 * HTTP provider turns it into manual review); 503 is worth a retry; 500 never shows internals.
 */
const RULES: ProblemRule[] = [
  { matches: (error) => error instanceof ManualReviewRequiredError, status: 422, code: 'MANUAL_REVIEW_REQUIRED', title: 'Manual review required', detail: (error) => (error as ManualReviewRequiredError).reason },
  { matches: (error) => error instanceof ChecksUnavailableError, status: 503, code: 'CHECKS_UNAVAILABLE', title: 'Service Unavailable', detail: messageOf, headers: { 'retry-after': '1' } },
  { matches: (error) => error instanceof BadEvidenceError, status: 400, code: 'BAD_REQUEST', title: 'Bad Request', detail: messageOf },
  { matches: (error) => error instanceof NotMultipartError, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', title: 'Unsupported Media Type', detail: messageOf },
];

function toProblem(error: unknown): { problem: Problem; headers: Record<string, string> } {
  const rule = RULES.find((candidate) => candidate.matches(error));
  if (rule) return { problem: problemOf(rule.status, rule.code, rule.title, rule.detail(error)), headers: rule.headers ?? {} };
  const status = clientStatusOf(error);
  if (status !== null) {
    const known = CLIENT_ERROR_CODES[status] ?? { code: 'CLIENT_ERROR', title: 'Client Error' };
    return { problem: problemOf(status, known.code, known.title, messageOf(error)), headers: {} };
  }
  return { problem: problemOf(500, 'INTERNAL_ERROR', 'Internal Server Error', 'the checks server failed unexpectedly; its log has the details'), headers: {} };
}

export function problemOf(status: number, code: string, title: string, detail: string): Problem {
  return { type: `/problems/${code.toLowerCase().replace(/_/g, '-')}`, title, status, code, detail };
}

export function sendProblem(reply: FastifyReply, problem: Problem, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(problem.status).headers(headers).type(`${PROBLEM_CONTENT_TYPE}; charset=utf-8`).send(JSON.stringify(problem));
}

/**
 * The log line for an answered error. A manual-review answer is an outcome, not a fault, unless
 * an unexpected error lies under it (a bug in an engine): that cause is logged as a warning.
 */
function logProblem(request: FastifyRequest, problem: Problem, error: unknown): void {
  const summary = { status: problem.status, code: problem.code, detail: problem.detail };
  if (problem.status >= 500 && problem.status !== 503) request.log.error({ err: error, problem: summary }, 'check request failed');
  else if (error instanceof ManualReviewRequiredError && error.cause !== undefined) request.log.warn({ err: error.cause, problem: summary }, 'check needs manual review after an unexpected error');
  else request.log.info({ problem: summary }, `check request answered ${problem.status} ${problem.code}`);
}

/** Every error and unknown route of the app answers problem+json. */
export function installProblemAnswers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { problem, headers } = toProblem(error);
    logProblem(request, problem, error);
    return sendProblem(reply, problem, headers);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, problemOf(404, 'NOT_FOUND', 'Not Found', `no route ${request.method} ${request.url.split('?')[0]}`)));
}
