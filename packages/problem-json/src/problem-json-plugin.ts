import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { mapErrorToProblem } from './error-mapping.js';
import { DEFAULT_PROBLEM_TYPE_BASE, PROBLEM_CONTENT_TYPE, toProblemDocument } from './problem-document.js';
import { NotFoundError, type ProblemError } from './problem-error.js';

export interface ProblemJsonPluginOptions {
  /** Prefix of every problem `type` URI; default `/problems/`. */
  typeBaseUri?: string;
}

/** The request path without its query string: the query may carry values that do not belong in a body. */
function requestPath(request: FastifyRequest): string {
  const queryStart = request.url.indexOf('?');
  return queryStart === -1 ? request.url : request.url.slice(0, queryStart);
}

function logProblem(request: FastifyRequest, problem: ProblemError, kind: string, error: unknown): void {
  const summary = { status: problem.status, code: problem.code };
  if (problem.status >= 500) {
    request.log.error({ err: error, problem: summary, errorKind: kind }, `request failed: ${problem.status} ${problem.code}`);
  } else {
    // A client mistake is not our failure: no stack, just what the caller was told.
    request.log.info({ problem: { ...summary, detail: problem.detail }, errorKind: kind }, `request rejected: ${problem.status} ${problem.code}`);
  }
}

// Serialised here rather than by the route's response schema: the body is built by us and
// must keep its extension members whatever the route declared for that status.
function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError, typeBaseUri: string): void {
  const body = { ...toProblemDocument(problem, requestPath(request), typeBaseUri), correlationId: request.id };
  void reply
    .code(problem.status)
    .headers(problem.headers)
    .type(`${problem.contentType ?? PROBLEM_CONTENT_TYPE}; charset=utf-8`)
    .send(JSON.stringify(body));
}

/**
 * Maps, logs and answers one error as the plugin's error handler does. Also for errors raised
 * outside a route's hooks (Fastify's frameworkErrors: a bad URL, an over-long path parameter),
 * and for a server that must answer a request whose handler is still waiting on its body.
 */
export function replyWithProblem(error: unknown, request: FastifyRequest, reply: FastifyReply, typeBaseUri: string = DEFAULT_PROBLEM_TYPE_BASE): void {
  const { problem, kind } = mapErrorToProblem(error, request);
  // Already answered (a stalled upload cut by the server, which then fails in its handler): only log.
  if (reply.sent || reply.raw.headersSent) {
    request.log.info({ problem: { status: problem.status, code: problem.code }, errorKind: kind }, 'request failed after it was answered');
    return;
  }
  logProblem(request, problem, kind, error);
  sendProblem(request, reply, problem, typeBaseUri);
}

/**
 * Answers every error and unknown route with an RFC 7807 problem+json body carrying the
 * request path as `instance` and the request id as `correlationId`.
 */
const problemJson: FastifyPluginAsync<ProblemJsonPluginOptions> = (app, options) => {
  const typeBaseUri = options.typeBaseUri ?? DEFAULT_PROBLEM_TYPE_BASE;

  app.setErrorHandler((error, request, reply) => {
    replyWithProblem(error, request, reply, typeBaseUri);
  });

  app.setNotFoundHandler((request, reply) => {
    const problem = new NotFoundError(`Route ${request.method} ${requestPath(request)} not found`);
    logProblem(request, problem, 'unknown-route', undefined);
    sendProblem(request, reply, problem, typeBaseUri);
  });

  return Promise.resolve();
};

export const problemJsonPlugin: FastifyPluginAsync<ProblemJsonPluginOptions> = fp(problemJson, {
  name: '@svc/problem-json',
  fastify: '5.x',
});
